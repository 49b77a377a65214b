import { OpenAPIRegistry, OpenApiGeneratorV3 } from "@asteasolutions/zod-to-openapi";
import { env } from "~/platform/env.server";
import { z } from "~/platform/zod";
import { API_PREFIX, API_TOKEN_RATE_LIMIT } from "./api.server";
import { API_OPERATIONS } from "./api-operations.server";
import { ApiErrorSchema, documentedTextItemSchemas } from "./api-schemas";

/**
 * The OpenAPI document of /api/v1, generated from the operations table and
 * the schemas the routes validate and answer with: nothing here is written
 * by hand but the words.
 */
const ERRORS = {
  400: "Invalid input: `error.fields` holds the form's messages by field",
  401: "No token, or an unknown, revoked or expired one (error code token_expired)",
  403: "A read token asked to write, or a plan rule refused (folder limit, Premium frequency)",
  404: "No such folder or item (another user's is not found either)",
  409: "The folder's state refuses it (paused, being sent, all unsubscribed, asked already)",
  413: "Body, file or storage too large",
  415: "A file whose bytes are not an allowed photo, file or video (or not the kind `type` asked for)",
  429: `More than ${API_TOKEN_RATE_LIMIT.points} requests a minute with this token; see Retry-After`,
  503: "The database was busy for a moment (error code busy): send it again after Retry-After",
} as const;

function errorResponses() {
  return Object.fromEntries(
    Object.entries(ERRORS).map(([status, description]) => [
      status,
      { description, content: { "application/json": { schema: ApiErrorSchema } } },
    ]),
  );
}

export function buildOpenApiDocument() {
  const registry = new OpenAPIRegistry();
  const bearer = registry.registerComponent("securitySchemes", "bearerAuth", {
    type: "http",
    scheme: "bearer",
    description: "A personal access token from Profile Settings → API tokens (read or write).",
  });
  for (const operation of API_OPERATIONS) {
    const names = [...operation.path.matchAll(/\{(\w+)\}/g)].map((found) => found[1]!);
    const body = operation.body
      ? operation.path.endsWith("/items") && operation.method === "POST"
        ? z.union([
            documentedTextItemSchemas.link.extend({ type: z.literal("link") }),
            documentedTextItemSchemas.musing.extend({ type: z.literal("musing") }),
          ])
        : operation.body
      : undefined;
    registry.registerPath({
      method: operation.method.toLowerCase() as "get",
      path: operation.path,
      summary: operation.summary,
      description: [`Needs a ${operation.scope} token.`, operation.description]
        .filter(Boolean)
        .join(" "),
      security: [{ [bearer.name]: [] }],
      request: {
        ...(names.length > 0
          ? {
              params: z.object(
                Object.fromEntries(names.map((name) => [name, z.number().int().min(0)])),
              ),
            }
          : {}),
        ...(operation.query ? { query: operation.query } : {}),
        ...(body ? { body: { content: { "application/json": { schema: body } } } } : {}),
        ...(operation.multipart
          ? { body: { content: { "multipart/form-data": { schema: operation.multipart } } } }
          : {}),
      },
      responses: {
        [operation.status ?? 200]: {
          description: "OK",
          content: { "application/json": { schema: operation.response } },
        },
        ...errorResponses(),
      },
    });
  }
  return new OpenApiGeneratorV3(registry.definitions).generateDocument({
    openapi: "3.0.3",
    info: {
      title: "Thoughtfully API",
      version: "1",
      description:
        "Save links, musings, photos and files into folders that become newsletters. Every limit and message is the web app's.",
    },
    servers: [{ url: `${env.APP_URL}${API_PREFIX}` }],
  });
}

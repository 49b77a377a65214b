import { parseWithZod } from "@conform-to/zod/v4";
import { UploadRejectedError } from "~/modules/files/upload-rejected.server";
import { FolderNotFoundError, FolderRuleError } from "~/modules/folders/folders.server";
import { SkipRuleError } from "~/modules/folders/skip.server";
import {
  ItemNotFoundError,
  ItemRuleError,
  QuotaExceededError,
} from "~/modules/items/item-rules.server";
import { RecipientRuleError } from "~/modules/recipients/recipients.server";
import { SendNowLimitError } from "~/modules/sending/send-now-limits.server";
import { SendRuleError } from "~/modules/sending/sending.server";
import { DATABASE_BUSY } from "~/platform/database-busy";
import { DATABASE_BUSY_RETRY_AFTER_SECONDS } from "~/platform/database-busy.server";
import { isDatabaseBusy } from "~/platform/errors.server";
import { consumeRateLimit, type RateLimit } from "~/platform/rate-limit.server";
import { readBodyText } from "~/platform/request-body.server";
import { ZodError, type z } from "~/platform/zod";
import type { ApiTokenScope } from "./api-token-validation";
import {
  type ApiPrincipal,
  ApiTokenRuleError,
  authenticateApiToken,
  bearerToken,
} from "./api-tokens.server";

/**
 * The machinery of the JSON API (/api/v1): bearer tokens, the per-token
 * rate limit, bounded JSON bodies, validation with the forms' schemas and one
 * error shape. The operations themselves are in api-operations.server.ts.
 */
export const API_PREFIX = "/api/v1";
/** JSON bodies are small: a folder with five recipients is well under 4 KB. */
export const API_JSON_MAX_BYTES = 64 * 1024;
export const API_TOKEN_RATE_LIMIT: RateLimit = {
  name: "api-token",
  points: 120,
  durationSeconds: 60,
};

export type ApiMethod = "GET" | "POST" | "PUT" | "PATCH" | "DELETE";

export type ApiContext = {
  request: Request;
  principal: ApiPrincipal;
  params: Record<string, number>;
  query: URLSearchParams;
};

export type ApiOperation = {
  method: ApiMethod;
  /** OpenAPI style: /folders/{folderId}. Every parameter is a positive integer id. */
  path: string;
  summary: string;
  /** More words for the document, where a body's shape needs them. */
  description?: string;
  scope: ApiTokenScope;
  /** A JSON body, validated before `handle` runs; the parsed value is its `body`. */
  body?: z.ZodType;
  /** Only for the document: a multipart body `handle` reads itself. */
  multipart?: z.ZodType;
  query?: z.ZodObject;
  response: z.ZodType;
  status?: 200 | 201;
  // biome-ignore lint/suspicious/noExplicitAny: each operation's body and query have their own types
  handle: (context: ApiContext, input: { body: any; query: any }) => unknown;
};

export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly fields?: Record<string, string[]>,
    readonly headers?: Record<string, string>,
  ) {
    super(message);
  }
}

/**
 * Any origin may call the API (the Chrome extension's popup does, without
 * host permissions): it is authorised by a bearer token only, never by
 * cookies, so another site gains nothing a token would not already give it.
 */
const CORS_HEADERS = {
  "Access-Control-Allow-Origin": "*",
  "Access-Control-Allow-Methods": "GET, POST, PUT, PATCH, DELETE",
  "Access-Control-Allow-Headers": "Authorization, Content-Type",
  "Access-Control-Expose-Headers": "Retry-After, WWW-Authenticate",
  "Access-Control-Max-Age": "600",
};

export function apiErrorResponse(error: ApiError) {
  return Response.json(
    {
      error: {
        code: error.code,
        message: error.message,
        ...(error.fields ? { fields: error.fields } : {}),
      },
    },
    {
      status: error.status,
      headers: { "Cache-Control": "no-store", ...CORS_HEADERS, ...error.headers },
    },
  );
}

export const notFound = () => new ApiError(404, "not_found", "Not Found");

/** A form schema's issues as the one error shape: the forms' messages, by field (docs/product-rules.md, Pages and messages). */
export function validationError(error: ZodError | Record<string, string[] | null>) {
  const fields: Record<string, string[]> = {};
  if (error instanceof ZodError) {
    for (const issue of error.issues) {
      const key = issue.path.join(".");
      fields[key] = [...(fields[key] ?? []), issue.message];
    }
  } else {
    for (const [key, messages] of Object.entries(error)) {
      if (messages?.length) fields[key] = messages;
    }
  }
  const first = Object.values(fields)[0]?.[0] ?? "Invalid request";
  return new ApiError(400, "validation_failed", first, fields);
}

/** Validates multipart fields with a form schema exactly as the web form does (conform). */
export function parseFormFields<Schema extends z.ZodType>(
  formData: FormData,
  schema: Schema,
): z.output<Schema> {
  const submission = parseWithZod(formData, { schema });
  if (submission.status !== "success") throw validationError(submission.error ?? {});
  return submission.value;
}

/** A domain refusal as an API error with the domain's own message. */
export function apiErrorFor(error: unknown): ApiError | null {
  if (error instanceof ApiError) return error;
  // The write lock held elsewhere past the request's short wait (docs/decisions/0246-a-busy-database-is-a-503-quickly.md).
  if (isDatabaseBusy(error)) {
    return new ApiError(503, "busy", DATABASE_BUSY.title, undefined, {
      "Retry-After": String(DATABASE_BUSY_RETRY_AFTER_SECONDS),
    });
  }
  if (error instanceof FolderNotFoundError || error instanceof ItemNotFoundError) return notFound();
  if (error instanceof QuotaExceededError) {
    return new ApiError(413, error.code, error.message);
  }
  if (error instanceof UploadRejectedError) {
    return new ApiError(error.status, error.code, error.message);
  }
  if (error instanceof FolderRuleError || error instanceof ApiTokenRuleError) {
    return new ApiError(403, "forbidden_by_rule", error.message);
  }
  if (error instanceof SendNowLimitError) {
    return new ApiError(429, "rate_limited", error.message, undefined, {
      "Retry-After": String(error.retryAfterSeconds),
    });
  }
  if (
    error instanceof ItemRuleError ||
    error instanceof SendRuleError ||
    error instanceof SkipRuleError ||
    error instanceof RecipientRuleError
  ) {
    return new ApiError(409, "conflict", error.message);
  }
  return null;
}

type CompiledOperation = ApiOperation & { pattern: RegExp; names: string[] };

export function compileOperations(operations: ApiOperation[]): CompiledOperation[] {
  return operations.map((operation) => {
    const names: string[] = [];
    const source = operation.path.replace(/\{(\w+)\}/g, (_, name: string) => {
      names.push(name);
      return "([^/]+)";
    });
    return { ...operation, pattern: new RegExp(`^${source}$`), names };
  });
}

function principalOf(request: Request): ApiPrincipal {
  const token = bearerToken(request);
  const principal = token ? authenticateApiToken(token) : null;
  if (principal === "expired") {
    throw new ApiError(
      401,
      "token_expired",
      "This token has expired. Create a new one under Profile Settings → API tokens.",
      undefined,
      { "WWW-Authenticate": 'Bearer realm="thoughtfully", error="invalid_token"' },
    );
  }
  if (!principal) {
    throw new ApiError(401, "unauthorized", "Unauthorized", undefined, {
      "WWW-Authenticate": 'Bearer realm="thoughtfully"',
    });
  }
  return principal;
}

async function readJsonBody(request: Request): Promise<unknown> {
  const text = await readBodyText(request, API_JSON_MAX_BYTES);
  if (text === null) {
    throw new ApiError(413, "body_too_large", `Request body over ${API_JSON_MAX_BYTES} bytes`);
  }
  if (!text.trim()) return {};
  try {
    return JSON.parse(text);
  } catch {
    throw new ApiError(400, "invalid_json", "The request body is not valid JSON");
  }
}

function match(operations: CompiledOperation[], method: string, path: string) {
  let pathExists = false;
  for (const operation of operations) {
    const found = operation.pattern.exec(path);
    if (!found) continue;
    pathExists = true;
    if (operation.method !== method) continue;
    const params: Record<string, number> = {};
    for (const [index, name] of operation.names.entries()) {
      const value = Number(found[index + 1]);
      // An id that is not one is, like another user's, not found.
      if (!Number.isSafeInteger(value) || value < 0) throw notFound();
      params[name] = value;
    }
    return { operation, params };
  }
  if (pathExists) throw new ApiError(405, "method_not_allowed", "Method Not Allowed");
  throw new ApiError(404, "route_not_found", "No such API route");
}

/**
 * One API request, start to finish. Only the Authorization header counts:
 * a browser's session cookie never authorises anything here, so another site
 * cannot make a signed-in browser call the API (no CSRF), and a token is
 * never read by a page.
 */
export async function handleApiRequest(
  request: Request,
  operations: CompiledOperation[],
): Promise<Response> {
  if (request.method === "OPTIONS")
    return new Response(null, { status: 204, headers: CORS_HEADERS });
  try {
    const url = new URL(request.url);
    const path = url.pathname.slice(API_PREFIX.length) || "/";
    const principal = principalOf(request);
    const verdict = await consumeRateLimit(API_TOKEN_RATE_LIMIT, String(principal.tokenId));
    if (!verdict.allowed) {
      throw new ApiError(429, "rate_limited", "Too many requests", undefined, {
        "Retry-After": String(verdict.retryAfterSeconds),
      });
    }
    const { operation, params } = match(operations, request.method, path);
    if (operation.scope === "write" && principal.scope !== "write") {
      throw new ApiError(403, "insufficient_scope", "This token can only read");
    }
    const input: { body: unknown; query: unknown } = { body: undefined, query: undefined };
    if (operation.query) {
      const parsed = operation.query.safeParse(Object.fromEntries(url.searchParams));
      if (!parsed.success) throw validationError(parsed.error);
      input.query = parsed.data;
    }
    if (operation.body) {
      const parsed = operation.body.safeParse(await readJsonBody(request));
      if (!parsed.success) throw validationError(parsed.error);
      input.body = parsed.data;
    }
    const result = await operation.handle(
      { request, principal, params, query: url.searchParams },
      input,
    );
    return Response.json(operation.response.parse(result), {
      status: operation.status ?? 200,
      headers: { "Cache-Control": "no-store", ...CORS_HEADERS },
    });
  } catch (error) {
    const mapped = apiErrorFor(error);
    if (mapped) return apiErrorResponse(mapped);
    console.error("API request failed", error);
    return apiErrorResponse(new ApiError(500, "internal_error", "Something went wrong"));
  }
}

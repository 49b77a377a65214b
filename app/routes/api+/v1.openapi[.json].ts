import { buildOpenApiDocument } from "~/modules/api/api-openapi.server";

/** The API's OpenAPI document: public, like any API reference. */
export function loader() {
  return Response.json(buildOpenApiDocument(), {
    headers: { "Cache-Control": "public, max-age=300" },
  });
}

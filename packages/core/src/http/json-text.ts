import type { TypedResponse } from "hono";
import type { ContentfulStatusCode } from "hono/utils/http-status";
import type { JSONParsed } from "hono/utils/types";

/**
 * A response whose body is already the JSON text of a `T` (a stored answer replayed byte for byte,
 * checked JSON spliced in without being parsed again), typed as `c.json` types the response of a
 * `T`: an OpenAPI route whose schema documents `T` may return it. The body is the caller's word.
 */
export function jsonTextOf<T, Status extends ContentfulStatusCode = 200>(
  response: Response,
): Response & TypedResponse<JSONParsed<T>, Status, "json"> {
  return response as Response & TypedResponse<JSONParsed<T>, Status, "json">;
}

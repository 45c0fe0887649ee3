import { Readable } from "node:stream";
import { createRoute, requestHeader, z } from "@app/core";
import { parseRange } from "../domain/byte-range.ts";
import { PublisherError } from "../errors.ts";
import { ObjectMissingError } from "../storage/errors.ts";
import { isStoragePath } from "../storage/paths.ts";
import type { PublisherApp, RouteDeps } from "./deps.ts";
import { textField } from "./text-field.ts";

const notFound = () => new PublisherError("NOT_FOUND", "No media is stored at this path.");

/**
 * Sent with every answer of `GET /media/…`: it is media, never a document, so browsers must not
 * sniff it into one, and anything opened anyway runs sandboxed with nothing allowed.
 */
export const MEDIA_SAFETY_HEADERS = {
  "x-content-type-options": "nosniff",
  "content-security-policy": "sandbox; default-src 'none'",
} as const;

/** GET /media/{path}: public media (no key: platforms pull it), with single byte-range requests. */
export function registerMediaGet(app: PublisherApp, deps: RouteDeps): void {
  app.use("/media/*", async (c, next) => {
    await next();
    for (const [name, value] of Object.entries(MEDIA_SAFETY_HEADERS)) c.res.headers.set(name, value);
  });
  const route = createRoute({
    method: "get",
    path: "/media/{path}",
    operationId: "media_get",
    tags: ["Media"],
    summary: "Public media (the videoUrl of an upload)",
    description:
      "No API key: platforms fetch it. Supports `Range: bytes=…` (206, Content-Range; 416 past the end).",
    request: { params: z.object({ path: textField() }) },
    responses: {
      200: { description: "The whole object" },
      206: { description: "The requested byte range" },
      404: { description: "Nothing stored at this path" },
      416: { description: "The range starts past the end" },
    },
  });
  app.openapi(route, async (c) => {
    const { path } = c.req.valid("param");
    if (!isStoragePath(path)) throw notFound();
    let head: { size: number; contentType: string };
    try {
      head = await deps.storage.head(path);
    } catch (error) {
      if (error instanceof ObjectMissingError) throw notFound();
      throw error;
    }
    const range = parseRange(requestHeader(c, "range"), head.size);
    const headers: Record<string, string> = {
      "content-type": head.contentType,
      "accept-ranges": "bytes",
      "cache-control": "public, max-age=86400",
      ...MEDIA_SAFETY_HEADERS,
    };
    if (range === "unsatisfiable") {
      return new Response(null, {
        status: 416,
        headers: { ...headers, "content-range": `bytes */${head.size}` },
      });
    }
    const wanted = range === "full" ? undefined : range;
    const object = head.size === 0 ? undefined : await deps.storage.read(path, wanted);
    const body = object ? (Readable.toWeb(object.stream as Readable) as ReadableStream) : null;
    if (!wanted) {
      return new Response(body, {
        status: 200,
        headers: { ...headers, "content-length": String(head.size) },
      });
    }
    return new Response(body, {
      status: 206,
      headers: {
        ...headers,
        "content-length": String(wanted.end - wanted.start + 1),
        "content-range": `bytes ${wanted.start}-${wanted.end}/${head.size}`,
      },
    });
  });
}

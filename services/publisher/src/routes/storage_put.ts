import { createRoute, requestHeader, requestIdOf, z } from "@app/core";
import type { Context } from "hono";
import type { MediaStorage } from "../contracts/storage.ts";
import { EMBEDDED_BUCKET } from "../storage/local-disk.ts";
import { isStoragePath } from "../storage/paths.ts";
import { S3_REFUSALS, type S3RefusalCode, s3ErrorXml, verifyPresignedRequest } from "../storage/sigv4.ts";
import { markMediaComplete } from "../store/media.ts";
import { MAX_UPLOAD_BYTES } from "../uploads/limits.ts";
import { requestBody } from "../uploads/receive.ts";
import type { PublisherApp, RouteDeps } from "./deps.ts";

/** Path prefix of the embedded S3-style store; its bodies are guarded by this route. */
export const STORAGE_PREFIX = "/storage/";

type S3Code =
  | S3RefusalCode
  | "NoSuchBucket"
  | "MissingContentLength"
  | "EntityTooLarge"
  | "IncompleteBody"
  | "InternalError";
const EXTRA_STATUSES = {
  NoSuchBucket: 404,
  MissingContentLength: 411,
  EntityTooLarge: 400,
  IncompleteBody: 400,
  InternalError: 500,
};

/** A failure of our own disk (full, read-only, out of descriptors), not of the client's body. */
const STORAGE_FAULTS = new Set(["ENOSPC", "EDQUOT", "EIO", "EROFS", "EACCES", "EPERM", "EMFILE", "ENFILE"]);
const isStorageFault = (error: unknown) => STORAGE_FAULTS.has((error as { code?: string }).code ?? "");

function s3Error(c: Context, code: S3Code, message: string): Response {
  const status =
    code in S3_REFUSALS
      ? S3_REFUSALS[code as S3RefusalCode]
      : EXTRA_STATUSES[code as keyof typeof EXTRA_STATUSES];
  return new Response(s3ErrorXml(code, message, requestIdOf(c) ?? ""), {
    status,
    headers: { "content-type": "application/xml", connection: "close" },
  });
}

const xml = { "application/xml": { schema: z.string() } };

/**
 * PUT /storage/media/{path}: the embedded store's presigned upload, checked as S3 checks it
 * (SigV4 query signature over method, path, query, host, Content-Length and Content-Type; expiry;
 * clock skew), refused with S3's XML errors, and streamed to disk.
 */
export function registerStoragePut(
  app: PublisherApp,
  deps: RouteDeps,
  uploads: NonNullable<MediaStorage["selfServedUploads"]>,
): void {
  const route = createRoute({
    method: "put",
    path: "/storage/{bucket}/{path}",
    operationId: "storage_put",
    tags: ["Media"],
    summary: "Presigned upload target (the uploadUrl of /api/v2/upload)",
    description: "Authenticated by the URL's SigV4 query signature, not by an API key.",
    responses: {
      200: { description: "Stored" },
      400: { description: "A body short of its Content-Length (IncompleteBody)", content: xml },
      500: { description: "The store could not keep the body (InternalError: disk full, say)", content: xml },
      403: {
        description: "SignatureDoesNotMatch, AccessDenied (expired), RequestTimeTooSkewed, …",
        content: xml,
      },
      404: { description: "NoSuchBucket", content: xml },
      411: { description: "MissingContentLength", content: xml },
    },
  });
  app.openapi(route, async (c) => {
    const { bucket, path } = c.req.param() as { bucket: string; path: string };
    if (bucket !== EMBEDDED_BUCKET || !isStoragePath(path)) {
      return s3Error(c, "NoSuchBucket", "The specified bucket does not exist.");
    }
    const url = new URL(c.req.url);
    const verdict = verifyPresignedRequest(
      {
        method: c.req.method,
        rawPath: url.pathname,
        rawQuery: url.search.slice(1),
        header: (name) => requestHeader(c, name) ?? (name === "host" ? url.host : undefined),
      },
      uploads.credentials,
      deps.clock.now(),
    );
    if (!verdict.ok) return s3Error(c, verdict.code, verdict.message);
    const declared = requestHeader(c, "content-length");
    if (declared === undefined || !/^\d{1,16}$/.test(declared)) {
      return s3Error(c, "MissingContentLength", "You must provide the Content-Length HTTP header.");
    }
    const length = Number(declared);
    if (length > MAX_UPLOAD_BYTES) {
      return s3Error(c, "EntityTooLarge", "Your proposed upload exceeds the maximum allowed size.");
    }
    const contentType = requestHeader(c, "content-type") ?? "application/octet-stream";
    try {
      const body = requestBody(c);
      await deps.storage.write(path, body.stream, {
        contentType,
        expectedBytes: length,
        ownsChunks: body.ownsChunks,
      });
    } catch (error) {
      if (isStorageFault(error)) {
        deps.logger.error({ err: error, path }, "a presigned upload could not be stored");
        return s3Error(c, "InternalError", "We encountered an internal error. Please try again.");
      }
      return s3Error(
        c,
        "IncompleteBody",
        "You did not provide the number of bytes specified by the Content-Length HTTP header.",
      );
    }
    await markMediaComplete(deps.db, path);
    return new Response(null, { status: 200 });
  });
}

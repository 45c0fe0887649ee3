import { requestHeader, type ServiceApp } from "@app/core";
import type { SandboxContext } from "../context.ts";
import { MediaDigest } from "../kit/digest.ts";
import { PlatformFailure } from "../kit/failure.ts";
import { mountOperation } from "../kit/operations.ts";
import { pipeRequestBody } from "../kit/stream-body.ts";
import { accessCaller } from "./auth.ts";
import { xrpcErrors } from "./errors.ts";
import { cidOf } from "./identifiers.ts";

export const UPLOAD_BLOB_PATH = "/xrpc/com.atproto.repo.uploadBlob";

/** `com.atproto.repo.uploadBlob`: the raw body, typed by Content-Type; answers the blob ref (a CIDv1 of its SHA-256). */
export function registerBlueskyUploadBlob(app: ServiceApp, ctx: SandboxContext): void {
  mountOperation(
    app,
    ctx.kit,
    {
      operation: "com.atproto.repo.uploadBlob",
      platform: "bluesky",
      method: "post",
      path: UPLOAD_BLOB_PATH,
      summary: "Upload a blob (image or video) for a record to reference",
      errors: xrpcErrors,
    },
    async (c) => {
      const did = accessCaller(c, ctx);
      const mimeType = (requestHeader(c, "content-type") ?? "").split(";")[0]?.trim().toLowerCase() ?? "";
      if (!/^[\w.+-]+\/[\w.+-]+$/.test(mimeType) || mimeType === "*/*") {
        throw new PlatformFailure(
          400,
          "InvalidRequest",
          "Request encoding (Content-Type) required but not provided",
        );
      }
      const limit = ctx.settings.bluesky.blobLimitBytes;
      const declared = requestHeader(c, "content-length");
      if (declared !== undefined && Number(declared) > limit) {
        throw new PlatformFailure(413, "PayloadTooLarge", "request entity too large", {
          Connection: "close",
        });
      }
      const digest = new MediaDigest();
      try {
        await pipeRequestBody(c, digest.sink(), limit);
      } catch {
        throw new PlatformFailure(413, "PayloadTooLarge", "request entity too large", {
          Connection: "close",
        });
      }
      if (digest.bytes === 0) throw new PlatformFailure(400, "InvalidRequest", "The blob is empty");
      const sha256 = digest.finish();
      const cid = cidOf(sha256, "raw");
      ctx.bluesky.blobs.set(cid, {
        cid,
        did,
        mimeType,
        size: digest.bytes,
        sha256,
        uploadedAt: ctx.kit.clock.now().toISOString(),
      });
      return c.json({ blob: { $type: "blob", ref: { $link: cid }, mimeType, size: digest.bytes } });
    },
  );
}

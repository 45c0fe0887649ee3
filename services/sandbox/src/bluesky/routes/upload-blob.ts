import { createHash } from "node:crypto";
import { Writable } from "node:stream";
import { requestHeader, type ServiceApp, streamRequestBody } from "@app/core";
import type { SandboxContext } from "../../context.ts";
import { PlatformFailure } from "../../kit/failure.ts";
import { accessCaller } from "../auth.ts";
import { SNIFF_BYTES, sniffMimeType } from "../blob-sniff.ts";
import { keepUploadedBlob, makeRoomForUpload } from "../blob-store.ts";
import { blobCid } from "../identifiers.ts";
import type { PdsHost } from "../network.ts";
import { StoredBlob } from "../state.ts";
import { mountXrpc } from "../xrpc.ts";

export const UPLOAD_BLOB_PATH = "/xrpc/com.atproto.repo.uploadBlob";

const tooLarge = () =>
  new PlatformFailure(413, "PayloadTooLarge", "request entity too large", { Connection: "close" });

/** A sink that hashes and keeps what it is given. */
class BlobSink extends Writable {
  readonly hash = createHash("sha256");
  readonly chunks: Buffer[] = [];
  size = 0;

  override _write(chunk: Buffer, _encoding: BufferEncoding, callback: () => void): void {
    this.hash.update(chunk);
    this.chunks.push(chunk);
    this.size += chunk.length;
    callback();
  }
}

/**
 * `com.atproto.repo.uploadBlob`: the raw body, streamed, hashed and kept (for `sync.getBlob`)
 * as a temporary blob: dropped unless a record references it within the hour, and held within
 * the twin's memory budget (`blob-retention.ts`; 413 `PayloadTooLarge` when records reference
 * so much that it cannot fit). Its type is sniffed from its bytes, as a PDS does with
 * `file-type`; the declared `Content-Type` (required) is only the fallback for bytes no
 * signature matches. Answers the blob ref (CIDv1 raw sha-256) carrying the sniffed type.
 */
export function registerUploadBlob(app: ServiceApp, ctx: SandboxContext, host: PdsHost): void {
  mountXrpc(
    app,
    ctx,
    "com.atproto.repo.uploadBlob",
    "post",
    "Upload a blob (image or video) for a record to reference",
    async (c) => {
      const account = accessCaller(c, ctx, host);
      const declared = (requestHeader(c, "content-type") ?? "").split(";")[0]?.trim().toLowerCase() ?? "";
      if (!/^[\w.+-]+\/[\w.+-]+$/.test(declared) && declared !== "*/*") {
        throw new PlatformFailure(
          400,
          "InvalidRequest",
          "Request encoding (Content-Type) required but not provided",
        );
      }
      const limit = ctx.settings.bluesky.blobLimitBytes;
      const length = requestHeader(c, "content-length");
      if (length !== undefined && Number(length) > limit) throw tooLarge();
      if (length !== undefined && /^\d+$/.test(length)) makeRoomForUpload(ctx, Number(length));
      const sink = new BlobSink();
      try {
        await streamRequestBody(c, sink, { maxBytes: limit });
      } catch {
        throw tooLarge();
      }
      if (sink.size === 0) throw new PlatformFailure(400, "InvalidRequest", "The blob is empty");
      const bytes = Buffer.concat(sink.chunks);
      const sha256 = sink.hash.digest("hex");
      const mimeType =
        sniffMimeType(bytes.subarray(0, SNIFF_BYTES)) ??
        (declared === "*/*" ? "application/octet-stream" : declared);
      const cid = blobCid(sha256);
      const blob = new StoredBlob(
        cid,
        account.did,
        mimeType,
        sink.size,
        sha256,
        ctx.kit.clock.now().toISOString(),
        bytes,
      );
      keepUploadedBlob(ctx, blob);
      return c.json({ blob: { $type: "blob", ref: { $link: cid }, mimeType, size: sink.size } });
    },
  );
}

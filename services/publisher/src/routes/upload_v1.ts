import { createRoute, errorResponseSpec, jsonResponse, requestHeader, z } from "@app/core";
import type { ApiKeyMiddleware } from "@app/edge";
import type { Env, MiddlewareHandler } from "hono";
import { API_KEY_RESPONSES, API_KEY_SECURITY, apiKeyGuard } from "../auth/guard.ts";
import { PublisherError } from "../errors.ts";
import type { KeyHolder } from "../store/accounts.ts";
import { recordMedia } from "../store/media.ts";
import { receiveFromClient, watchUploadClient } from "../uploads/client-end.ts";
import { MAX_UPLOAD_BYTES, UPLOAD_V2_PATH } from "../uploads/limits.ts";
import { declaredLength, receiveMultipart, receiveRaw } from "../uploads/receive.ts";
import { newMediaPath } from "../uploads/record.ts";
import type { PublisherApp, RouteDeps } from "./deps.ts";

export const UploadResult = z
  .object({
    success: z.literal(true),
    videoUrl: z
      .string()
      .openapi({ description: "Public URL of the media (range requests supported); use it in posts" }),
    path: z.string().openapi({ description: "Storage path" }),
    message: z.string(),
  })
  .openapi("UploadResult");

/** The path of the v1 upload, whose body this route guards itself. */
export const UPLOAD_V1_PATH = "/api/v1/upload";

/** POST /api/v1/upload: a multipart `file` or a raw body named by `x-filename`, streamed to storage. */
export function registerUploadV1(app: PublisherApp, deps: RouteDeps): void {
  // The client's end watched first (it may answer a short body itself), then the key checked. A
  // typed pair, not an array literal, so that the handler sees the key's holder as `c.var.caller`.
  const middleware: [MiddlewareHandler<Env>, ApiKeyMiddleware<KeyHolder>] = [
    watchUploadClient,
    apiKeyGuard(deps, "media:write"),
  ];
  const route = createRoute({
    method: "post",
    path: UPLOAD_V1_PATH,
    operationId: "upload_v1",
    tags: ["Media"],
    summary: "Upload media directly",
    description: `multipart/form-data with the field \`file\`, or a raw body with the header \`x-filename\`. Content-Length is required, at most ${MAX_UPLOAD_BYTES} bytes, and checked before the body is read. A JSON body gets 426 pointing to ${UPLOAD_V2_PATH}.`,
    security: API_KEY_SECURITY,
    middleware,
    responses: {
      200: jsonResponse(UploadResult, "Stored"),
      400: errorResponseSpec(
        "Not a video or image, an empty file (VALIDATION_FAILED), or a body short of its Content-Length (INCOMPLETE_UPLOAD)",
      ),
      ...API_KEY_RESPONSES,
      411: errorResponseSpec("No Content-Length (LENGTH_REQUIRED)"),
      413: errorResponseSpec("Content-Length over 512 MiB (PAYLOAD_TOO_LARGE)"),
      426: errorResponseSpec("A JSON presign request: use /api/v2/upload (UPLOAD_CONTRACT_UPGRADED)"),
    },
  });
  app.openapi(route, async (c) => {
    const contentType = requestHeader(c, "content-type")?.toLowerCase() ?? "";
    if (/^application\/json\b/.test(contentType)) {
      throw new PublisherError(
        "UPLOAD_CONTRACT_UPGRADED",
        `Presigned uploads moved to ${UPLOAD_V2_PATH}, which binds the exact upload size; send the file itself here, or ask ${UPLOAD_V2_PATH} for an upload URL.`,
        { upgradeTo: UPLOAD_V2_PATH },
      );
    }
    const length = declaredLength(c);
    const { accountId } = c.var.caller;
    let mediaId = "";
    const makePath = (extension: string) => {
      const made = newMediaPath(extension);
      mediaId = made.id;
      return made.path;
    };
    // A client that half-closed after a short body was answered as it went; the error thrown then
    // gives way to that answer (see client-end.ts).
    const upload = await receiveFromClient(c, deps.logger, length, () =>
      contentType.startsWith("multipart/form-data")
        ? receiveMultipart(c, deps.storage, makePath, length)
        : receiveRaw(c, deps.storage, makePath, length),
    );
    await recordMedia(deps.db, { id: mediaId, accountId, ...upload, complete: true });
    return c.json(
      {
        success: true as const,
        videoUrl: deps.storage.publicUrl(upload.path),
        path: upload.path,
        message: `Uploaded ${upload.sizeBytes} bytes.`,
      },
      200,
    );
  });
}

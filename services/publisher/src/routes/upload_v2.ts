import { createRoute, errorResponseSpec, jsonResponse, z } from "@app/core";
import { API_KEY_RESPONSES, API_KEY_SECURITY, apiKeyGuard } from "../auth/guard.ts";
import { describeUpload, isUploadContentType, UPLOAD_CONTENT_TYPES } from "../domain/media-types.ts";
import { recordMedia } from "../store/media.ts";
import { MAX_UPLOAD_BYTES } from "../uploads/limits.ts";
import { newMediaPath } from "../uploads/record.ts";
import type { PublisherApp, RouteDeps } from "./deps.ts";
import {
  answerIdempotently,
  type CreateProgress,
  IDEMPOTENT_CREATE_RESPONSES,
  IdempotencyKeyHeaders,
} from "./idempotent-create.ts";
import { invalidPayload } from "./prepare-post.ts";
import { textField } from "./text-field.ts";

const PresignRequest = z
  .object({
    contentLength: z
      .number()
      .int()
      .min(1)
      .max(MAX_UPLOAD_BYTES)
      .openapi({ description: "Exact size in bytes; bound to the upload URL" }),
    filename: textField().min(1).max(255).optional().openapi({ description: "Only its extension is used" }),
    contentType: textField()
      .max(128)
      .refine(isUploadContentType, `must be one of ${Object.keys(UPLOAD_CONTENT_TYPES).join(", ")}`)
      .optional()
      .openapi({ example: "video/mp4" }),
  })
  .openapi("PresignRequest");

const PresignResult = z
  .object({
    success: z.literal(true),
    uploadUrl: z
      .string()
      .openapi({ description: "PUT the file here with exactly the signed Content-Type and Content-Length" }),
    videoUrl: z.string(),
    path: z.string(),
    expiresIn: z.number().int().openapi({ description: "Seconds the uploadUrl stays valid", example: 900 }),
    message: z.string(),
  })
  .openapi("PresignResult");

/** The answer of POST /api/v2/upload. */
export type PresignAnswer = z.infer<typeof PresignResult>;

/** POST /api/v2/upload: a presigned PUT URL bound to the exact size and type of the file. */
export function registerUploadV2(app: PublisherApp, deps: RouteDeps): void {
  const route = createRoute({
    method: "post",
    path: "/api/v2/upload",
    operationId: "upload_v2",
    tags: ["Media"],
    summary: "Get a presigned upload URL",
    security: API_KEY_SECURITY,
    middleware: apiKeyGuard(deps, "media:write"),
    request: {
      headers: IdempotencyKeyHeaders,
      body: { required: true, content: { "application/json": { schema: PresignRequest } } },
    },
    responses: {
      200: jsonResponse(PresignResult, "PUT the file to uploadUrl, then use videoUrl in a post"),
      400: errorResponseSpec(
        "Invalid body, or no media type from contentType or filename (VALIDATION_FAILED)",
      ),
      ...API_KEY_RESPONSES,
      ...IDEMPOTENT_CREATE_RESPONSES,
    },
  });
  app.openapi(route, async (c) => {
    const { accountId } = c.var.caller;
    const body = c.req.valid("json");
    return answerIdempotently<PresignAnswer>(
      c,
      deps,
      { accountId, operation: "upload_v2", body },
      (progress) => presignUpload(deps, accountId, body, progress),
    );
  });
}

/** A new media path for the file, its presigned PUT URL, and the media row (incomplete until the PUT). */
async function presignUpload(
  deps: RouteDeps,
  accountId: string,
  body: z.infer<typeof PresignRequest>,
  progress: CreateProgress,
): Promise<PresignAnswer> {
  const described = describeUpload(body.filename, body.contentType);
  if (!described) {
    throw invalidPayload([
      {
        path: "contentType",
        message: `give one of ${Object.keys(UPLOAD_CONTENT_TYPES).join(", ")}, or a filename like clip.mp4`,
      },
    ]);
  }
  const { id, path } = newMediaPath(described.extension);
  const expiresIn = deps.presignExpiresSeconds;
  const uploadUrl = await deps.storage.presignPut(path, {
    contentLength: body.contentLength,
    contentType: described.contentType,
    expiresIn,
  });
  await recordMedia(deps.db, {
    id,
    accountId,
    path,
    contentType: described.contentType,
    sizeBytes: body.contentLength,
    complete: false,
  });
  progress.created = { path };
  return {
    success: true as const,
    uploadUrl,
    videoUrl: deps.storage.publicUrl(path),
    path,
    expiresIn,
    message: `PUT the file to uploadUrl within ${expiresIn} s with Content-Type: ${described.contentType} and Content-Length: ${body.contentLength}.`,
  };
}

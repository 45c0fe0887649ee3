import { defineErrors } from "@app/core";

/** The publisher service's own error codes, besides the platform's (`packages/core/src/errors.ts`). */
export class PublisherError extends defineErrors({
  /** The API key is valid but lacks the scope the operation needs. */
  INSUFFICIENT_SCOPE: 403,
  /** A connection id is not one of the account's, or the connection needs reconnecting. */
  INVALID_CONNECTION: 400,
  /** A target's platform does not accept the post's content (text-only to YouTube, …). */
  CONTENT_NOT_ACCEPTED: 400,
  /** The media at a URL of this service is not uploaded (or not completely). */
  MEDIA_NOT_FOUND: 400,
  /** The queue found no free slot within its horizon. */
  NO_SLOTS: 400,
  /** DELETE /api/v1/posts on a post that is not `scheduled`. */
  POST_NOT_SCHEDULED: 400,
  /** A body shorter than its Content-Length, or a multipart body without a `file`. */
  INCOMPLETE_UPLOAD: 400,
  /** No post with this id belongs to the account. */
  POST_NOT_FOUND: 404,
  /** No group with this id belongs to the account. */
  GROUP_NOT_FOUND: 404,
  /** The account already has a group with this name. */
  GROUP_NAME_TAKEN: 409,
  /** A JSON presign request sent to the v1 upload; the body carries `upgradeTo`. */
  UPLOAD_CONTRACT_UPGRADED: 426,
  /** A post's checks (creator_info, media imports and checks) outran their deadline; nothing was stored. */
  PREFLIGHT_TIMEOUT: 504,
}) {}

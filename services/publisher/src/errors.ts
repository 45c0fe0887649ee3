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
  /** PATCH /api/v1/posts/{id} of a post a worker has begun publishing (or has published): nothing changed. */
  POST_PUBLISHING_STARTED: 409,
  /** PATCH /api/v1/posts/{id} that lost to another edit or a cancel of the same post: nothing changed. */
  POST_EDIT_CONFLICT: 409,
  /**
   * A retry of targets the platform may already hold (a handle saved, a publish call sent without
   * an answer); the body names them. `force: true` with a `reason` runs them anyway.
   */
  PUBLISH_OUTCOME_UNKNOWN: 409,
  /** A retry of a post with no failed target (or of connections whose targets did not fail). */
  NOTHING_TO_RETRY: 409,
  /** DELETE /api/v1/posts/{id}/published of a post none of whose targets was published. */
  POST_NOT_PUBLISHED: 409,
  /** A JSON presign request sent to the v1 upload; the body carries `upgradeTo`. */
  UPLOAD_CONTRACT_UPGRADED: 426,
  /** A post's checks (creator_info, media imports and checks) outran their deadline; nothing was stored. */
  PREFLIGHT_TIMEOUT: 504,
  /** No webhook endpoint with this id belongs to the account. */
  WEBHOOK_NOT_FOUND: 404,
  /** The endpoint has no delivery with this id. */
  WEBHOOK_DELIVERY_NOT_FOUND: 404,
  /** The account has as many webhook endpoints as it may (`limit`). */
  WEBHOOK_LIMIT_REACHED: 409,
  /** A resend of a delivery whose attempt is being made right now. */
  WEBHOOK_DELIVERY_IN_PROGRESS: 409,
  /** A resend to an endpoint that is turned off (turn it on first). */
  WEBHOOK_ENDPOINT_DISABLED: 409,
}) {}

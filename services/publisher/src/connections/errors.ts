import { defineErrors } from "@app/core";

/** The connect flows' own error codes (for the service's error table). */
export const CONNECTION_ERRORS = {
  OAUTH_STATE_INVALID: 400,
  OAUTH_DENIED: 400,
  OAUTH_CONFIRMATION_REFUSED: 403,
  NO_YOUTUBE_CHANNEL: 400,
  BLUESKY_LOGIN_FAILED: 400,
  BLUESKY_ACCOUNT_NOT_FOUND: 400,
  PLATFORM_UNAVAILABLE: 502,
} as const;

export class ConnectionError extends defineErrors(CONNECTION_ERRORS) {}

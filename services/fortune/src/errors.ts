import { defineErrors } from "@app/core";

/** The fortune service's own error codes, besides the platform's. */
export class FortuneError extends defineErrors({
  CHARGE_OVER_CAP: 400,
  FAVORITES_LIMIT: 409,
  FAVORITE_EXISTS: 409,
}) {}

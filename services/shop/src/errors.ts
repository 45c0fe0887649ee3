import { defineErrors } from "@app/core";

/** The shop service's own error codes, besides the platform's. */
export class ShopError extends defineErrors({
  /** The `service` id is not one of the calling shop's services. */
  SERVICE_NOT_FOUND: 404,
  /** No open slot of the service starts at the requested instant for the requested party. */
  SLOT_UNAVAILABLE: 409,
}) {}

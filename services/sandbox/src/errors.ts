import { defineErrors } from "@app/core";

/**
 * The sandbox's own error codes, for its `/_sandbox` control endpoints (the twins answer in
 * each platform's own error format instead).
 */
export class SandboxError extends defineErrors({
  /** A fault names an operation the sandbox does not have (see `GET /_sandbox/operations`). */
  UNKNOWN_OPERATION: 400,
}) {}

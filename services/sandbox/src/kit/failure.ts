/**
 * A refusal in a platform's own terms, thrown anywhere below an operation and rendered by
 * that operation's error renderer (Google JSON, OAuth, TikTok envelope or XRPC).
 */
export class PlatformFailure extends Error {
  constructor(
    readonly status: number,
    /** The platform's code or reason: `invalid_grant`, `quotaExceeded`, `invalid_params`, `InvalidRequest`. */
    readonly code: string,
    message: string,
    readonly headers: Record<string, string> = {},
  ) {
    super(message);
    this.name = "PlatformFailure";
  }
}

/** What an error renderer is told: a failure, or an injected fault's status with no code. */
export type FailureShape = {
  status: number;
  code?: string;
  message?: string;
  headers?: Record<string, string>;
};

/** Turns a failure into the response body a platform sends for it. */
export type ErrorRenderer = (failure: FailureShape) => { status: number; body: unknown };

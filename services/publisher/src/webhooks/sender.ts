/** One webhook attempt as it goes out: a JSON POST. */
export type WebhookRequest = {
  url: string;
  /** The signature headers (and any other); Content-Type and Content-Length are the sender's. */
  headers: Record<string, string>;
  body: string;
};

/** How an attempt ended: the receiver answered (any status), or no answer came. */
export type WebhookResponse =
  | {
      kind: "answered";
      status: number;
      latencyMs: number;
      /** The first bytes of the answer's body (bounded; redacted later by the worker). */
      body: Buffer;
      /** The receiver's `Retry-After` header, as sent. */
      retryAfter?: string;
    }
  | {
      kind: "failed";
      /** Why no answer came, without the URL (its query may hold a receiver's token). */
      error: string;
      latencyMs: number;
      /** True when the request never left: the target was refused before connecting. */
      refused: boolean;
      /** True when no answer came within the time limit (the attempt held its slot that long). */
      timedOut: boolean;
    };

/**
 * Sends webhook attempts: the real one (`createGuardedSender`, guarded-post.ts) checks every
 * target against the SSRF rules and never follows a redirect; the fake (sender.fake.ts) records.
 */
export interface WebhookSender {
  send(request: WebhookRequest): Promise<WebhookResponse>;
  /** Lets go of kept-alive connections. */
  close(): void;
}

import type { UpstreamClient, UpstreamRequest, UpstreamResponse } from "./client.ts";

/** What the fake answers a request with: a response, or a thrown `UpstreamFailure`. */
export type FakeUpstreamHandler = (request: UpstreamRequest) => UpstreamResponse | Promise<UpstreamResponse>;

/** A JSON answer for the fake. */
export function jsonAnswer(status: number, body: unknown): UpstreamResponse {
  return {
    status,
    contentType: "application/json",
    retryAfter: undefined,
    body: new TextEncoder().encode(JSON.stringify(body)),
  };
}

/**
 * An in-memory upstream client: answers through `handler` and keeps every request it was sent,
 * for tests and for the benchmark's gateway-overhead figure (no socket at all).
 */
export class FakeUpstreamClient implements UpstreamClient {
  readonly requests: UpstreamRequest[] = [];

  constructor(private readonly handler: FakeUpstreamHandler = () => jsonAnswer(200, { ok: true })) {}

  async send(request: UpstreamRequest): Promise<UpstreamResponse> {
    this.requests.push(request);
    return this.handler(request);
  }

  async close(): Promise<void> {}
}

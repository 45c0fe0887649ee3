import type { WebhookRequest, WebhookResponse, WebhookSender } from "./sender.ts";

/** What the fake receiver answers: a status (and optionally a body and Retry-After), or no answer. */
export type FakeAnswer =
  | { status: number; body?: string; retryAfter?: string }
  | { error: string; refused?: boolean; timedOut?: boolean };

/** A {@link WebhookSender} that sends nothing: it records each request and answers as told. */
export type FakeSender = WebhookSender & { readonly sent: WebhookRequest[] };

/** A fake sender answering `answer(request)` (200 by default). */
export function createFakeSender(
  answer: (request: WebhookRequest) => FakeAnswer | Promise<FakeAnswer> = () => ({ status: 200 }),
): FakeSender {
  const sent: WebhookRequest[] = [];
  return {
    sent,
    async send(request): Promise<WebhookResponse> {
      sent.push(request);
      const reply = await answer(request);
      if ("error" in reply) {
        return {
          kind: "failed",
          error: reply.error,
          latencyMs: 1,
          refused: reply.refused ?? false,
          timedOut: reply.timedOut ?? false,
        };
      }
      return {
        kind: "answered",
        status: reply.status,
        latencyMs: 1,
        body: Buffer.from(reply.body ?? ""),
        retryAfter: reply.retryAfter,
      };
    },
    close() {},
  };
}

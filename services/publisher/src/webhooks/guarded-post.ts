import { Agent as HttpAgent, request as httpRequest, type IncomingMessage } from "node:http";
import { Agent as HttpsAgent, request as httpsRequest } from "node:https";
import { addressCheckedLookup } from "../media/guarded-fetch.ts";
import type { WebhookRequest, WebhookResponse, WebhookSender } from "./sender.ts";
import { mayConnect, type WebhookTargetPolicy, webhookUrlProblem } from "./target-policy.ts";

/** Limits of one attempt. */
export type GuardedPostLimits = {
  /** The whole attempt: connecting, sending, the response head and its excerpt. */
  timeoutMs: number;
  /** How much of the answer's body is read (the rest is dropped with the connection). */
  excerptBytes: number;
};

export const DEFAULT_POST_LIMITS: GuardedPostLimits = { timeoutMs: 15_000, excerptBytes: 1_024 };

const USER_AGENT = "publisher-webhooks/1.0";

function describeFailure(error: NodeJS.ErrnoException, timedOut: boolean, timeoutMs: number): string {
  if (timedOut) return `No answer within ${timeoutMs} ms.`;
  switch (error.code) {
    case "EADDRFORBIDDEN":
      return "The host resolves to an address webhooks are never sent to.";
    case "ENOTFOUND":
    case "EAI_AGAIN":
      return `The host name did not resolve (${error.code}).`;
    case "ECONNREFUSED":
      return "The connection was refused (ECONNREFUSED).";
    case "ECONNRESET":
      return "The connection was reset before an answer (ECONNRESET).";
    default:
      return `The request failed (${error.code ?? error.name}).`;
  }
}

/** Reads at most `limit` bytes of a body; the connection is dropped when more would follow. */
function readExcerpt(res: IncomingMessage, limit: number): Promise<Buffer> {
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const finish = () => resolve(Buffer.concat(chunks).subarray(0, limit));
    res.on("data", (chunk: Buffer) => {
      chunks.push(chunk);
      size += chunk.length;
      if (size >= limit) {
        res.destroy();
        finish();
      }
    });
    res.once("end", finish);
    res.once("close", finish);
    res.once("error", finish);
  });
}

/**
 * The real {@link WebhookSender}: a JSON POST to the endpoint's URL through the publisher's SSRF
 * guard (the media fetcher's rules: http(s) only, no credentials, IP literals checked here and
 * names after DNS at connect time, so a name cannot rebind between check and connection), with
 * the own network allowed only by `policy`. A redirect is never followed: a 3xx is the answer,
 * a failed attempt. Connections are kept alive in agents of its own (never shared with the
 * media fetches, whose rules are stricter).
 */
export function createGuardedSender(
  policy: WebhookTargetPolicy,
  limits: GuardedPostLimits = DEFAULT_POST_LIMITS,
): WebhookSender {
  const lookup = addressCheckedLookup((address) => mayConnect(address, policy));
  // No cap on connections to one host: an attempt's time limit runs from the moment it is sent, so
  // one waiting in the pool for a connection would time out against a receiver that never got it.
  // The worker's slots (and each account's half of them) already bound what is in flight.
  const agents = {
    "http:": new HttpAgent({ keepAlive: true, lookup }),
    "https:": new HttpsAgent({ keepAlive: true, lookup }),
  };
  return {
    send(input: WebhookRequest): Promise<WebhookResponse> {
      const started = performance.now();
      const elapsed = () => Math.round(performance.now() - started);
      const problem = webhookUrlProblem(input.url, policy);
      if (problem) {
        return Promise.resolve({
          kind: "failed",
          error: `Not sent: the URL ${problem}.`,
          latencyMs: 0,
          refused: true,
          timedOut: false,
        });
      }
      const url = new URL(input.url);
      const secure = url.protocol === "https:";
      const send = secure ? httpsRequest : httpRequest;
      const body = Buffer.from(input.body, "utf8");
      return new Promise((resolve) => {
        let timedOut = false;
        let settled = false;
        const settle = (response: WebhookResponse) => {
          if (settled) return;
          settled = true;
          clearTimeout(deadline);
          resolve(response);
        };
        const req = send(url, {
          method: "POST",
          agent: secure ? agents["https:"] : agents["http:"],
          lookup,
          headers: {
            ...input.headers,
            "content-type": "application/json",
            "content-length": String(body.length),
            "user-agent": USER_AGENT,
          },
        });
        const deadline = setTimeout(() => {
          timedOut = true;
          req.destroy(new Error("timeout"));
        }, limits.timeoutMs);
        req.once("response", async (res) => {
          const latencyMs = elapsed();
          const retryAfter = res.headers["retry-after"];
          const excerpt = await readExcerpt(res, limits.excerptBytes);
          settle({ kind: "answered", status: res.statusCode ?? 0, latencyMs, body: excerpt, retryAfter });
        });
        req.once("error", (error: NodeJS.ErrnoException) =>
          settle({
            kind: "failed",
            error: describeFailure(error, timedOut, limits.timeoutMs),
            latencyMs: elapsed(),
            refused: error.code === "EADDRFORBIDDEN",
            timedOut,
          }),
        );
        req.end(body);
      });
    },
    close() {
      agents["http:"].destroy();
      agents["https:"].destroy();
    },
  };
}

import type { MppRail } from "@app/payments";
import type { Context, MiddlewareHandler } from "hono";

const hasPaymentCredential = (c: Context) => /^Payment\s/i.test(c.req.header("authorization") ?? "");
const hasNoBody = (c: Context) =>
  (c.req.header("content-length") ?? "0") === "0" && !c.req.header("transfer-encoding");

/**
 * Session routes also receive the MPP client's bodiless management POSTs (a new
 * voucher, a top-up, a close) with an `Authorization: Payment` credential: those go
 * straight to the MPP server, which answers them itself; every other request goes
 * on to body validation and the route.
 */
export function sessionManagement(mpp: MppRail, mode: "session" | "stream"): MiddlewareHandler {
  return async (c, next) => {
    if (c.req.method !== "POST" || !hasPaymentCredential(c) || !hasNoBody(c)) return next();
    if (mode === "session") {
      const result = await mpp.session(c.req.raw);
      return result.status === 402
        ? result.challenge
        : result.withReceipt(new Response(null, { status: 204 }));
    }
    const result = await mpp.stream(c.req.raw, async function* () {});
    return result.status === 402 ? result.challenge : result.response;
  };
}

/** The request again, with the validated JSON as its body (the original body was read by validation). */
export function withJsonBody(c: Context, body: unknown): Request {
  const headers = new Headers(c.req.raw.headers);
  headers.delete("content-length");
  headers.set("content-type", "application/json");
  return new Request(c.req.url, {
    method: c.req.method,
    headers,
    body: JSON.stringify(body),
    signal: c.req.raw.signal,
  });
}

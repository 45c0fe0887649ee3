/**
 * Paying by MPP with `createMppClient` from `@app/payments` (the official
 * `mppx/client`): one-shot `tempo.charge` payments, and `tempo.session` channels
 * through the official `sessionManager` in request mode or over SSE.
 *
 * @module
 */
import { createMppClient, type MppClient, type MppSessionManager } from "@app/payments";
import type { PayingWallet, PayTarget } from "./manifest.ts";

/** Largest one-shot MPP charge the CLI pays, in decimal dollars. */
export const MAX_MPP_CHARGE = "1";

/** The receipt of a session's cooperative close (channel, amounts, transaction), if the server sent one. */
export type CloseReceipt = Awaited<ReturnType<MppSessionManager["close"]>>;

/** How a session ended: closed (with the server's receipt, if it sent one), or never opened. */
export type SessionEnd = { opened: true; receipt: CloseReceipt } | { opened: false };

/** An MPP session (one channel) the caller must close once done. */
export type OpenSession = {
  /** Settles and closes the channel if it was opened (refunding the rest of the deposit); else does nothing. */
  close(): Promise<SessionEnd>;
};

/** A streamed reply: its tokens as they arrive, or the response that refused to stream. */
export type StreamOutcome = OpenSession &
  ({ kind: "stream"; tokens: AsyncIterable<string> } | { kind: "refused"; response: Response });

function client(target: PayingWallet, fetchImpl?: typeof fetch, maxChargeAmount = MAX_MPP_CHARGE): MppClient {
  return createMppClient({
    rpcUrl: target.chain.tempoRpcUrl,
    chainId: target.chain.chainId,
    privateKey: target.wallet.privateKey,
    maxChargeAmount,
    ...(fetchImpl ? { fetch: fetchImpl } : {}),
  });
}

const closer = (session: MppSessionManager) => async (): Promise<SessionEnd> =>
  session.opened ? { opened: true, receipt: await session.close() } : { opened: false };

/**
 * Pays a one-shot MPP charge (`tempo.charge`): an unpaid try, then one paid retry on a 402; a
 * charge above `maxCharge` (decimal, default {@link MAX_MPP_CHARGE}) is refused.
 */
export function payMppCharge(
  target: PayingWallet,
  url: string,
  init: RequestInit,
  maxCharge?: string,
): Promise<Response> {
  return client(target, undefined, maxCharge).fetch(url, init);
}

/**
 * Opens an MPP session and makes one paid request in request mode; the caller reads
 * the response, then closes the session.
 */
export async function payMppSession(
  target: PayTarget,
  url: string,
  init: RequestInit,
  maxDeposit: string,
): Promise<OpenSession & { response: Response }> {
  const session = client(target).session({ maxDeposit });
  const close = closer(session);
  try {
    return { response: await session.fetch(url, init), close };
  } catch (error) {
    await close().catch(() => undefined);
    throw error;
  }
}

/**
 * Opens an MPP session over server-sent events: the session manager posts vouchers as
 * the server asks for them. Yields each token's text (the `token` of the fortune
 * stream's `{index, token}` events, else the raw event data). A route that answers
 * without a stream (e.g. 400 for an invalid body) comes back as `refused`.
 */
export async function payMppStream(
  target: PayTarget,
  url: string,
  init: Omit<RequestInit, "signal">,
  maxDeposit: string,
): Promise<StreamOutcome> {
  let opening = true;
  let answered: Response | undefined;
  const recordingFetch: typeof fetch = async (input, requestInit) => {
    const response = await fetch(input, requestInit);
    if (opening) {
      const eventStream = (response.headers.get("content-type") ?? "").startsWith("text/event-stream");
      answered = eventStream ? undefined : response;
    }
    return response;
  };
  const session = client(target, recordingFetch).session({ maxDeposit });
  const close = closer(session);
  try {
    const events = await session.sse(url, init);
    opening = false;
    return { kind: "stream", tokens: tokensOf(events), close };
  } catch (error) {
    if (answered && answered.status !== 402) return { kind: "refused", response: answered, close };
    await close().catch(() => undefined);
    throw error;
  }
}

async function* tokensOf(events: AsyncIterable<string>): AsyncIterable<string> {
  for await (const data of events) {
    let token: unknown;
    try {
      token = (JSON.parse(data) as { token?: unknown }).token;
    } catch {
      token = undefined;
    }
    yield typeof token === "string" ? token : data;
  }
}

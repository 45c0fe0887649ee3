/**
 * Per-token charging of an SSE session stream: each token is charged from the channel before it is
 * sent, waiting a bounded time for the client's voucher.
 *
 * @module
 */

/** Per-token charging controller that mppx passes to an SSE generator. */
export interface StreamController {
  charge(): Promise<void>;
}

/**
 * Charges one unit, waiting at most `ms` for the client's voucher: true when charged,
 * false when the time ran out (a late failure of the abandoned charge is ignored).
 */
export async function chargedWithin(controller: StreamController, ms: number): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const charged = controller.charge().then(() => true);
  const timedOut = new Promise<false>((resolve) => {
    timer = setTimeout(() => resolve(false), ms);
  });
  try {
    return await Promise.race([charged, timedOut]);
  } finally {
    clearTimeout(timer);
    charged.catch(() => undefined);
  }
}

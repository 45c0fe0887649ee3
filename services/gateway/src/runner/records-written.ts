import type { GatewayDeps } from "./deps.ts";

/**
 * Writes what this instance still holds of its runs (free runs' usage records, priced runs not
 * settled yet), so that the history read next shows every run this instance has answered. Runs
 * answered by other instances show within their own batch's delay (100 ms).
 */
export async function recordsWritten(deps: Pick<GatewayDeps, "usage" | "held">): Promise<void> {
  await Promise.all([deps.usage.flush(), deps.held.flush()]);
}

/**
 * How MPP refusals reach a payer. mppx answers a voucher or charge on a closed or close-requested
 * channel with `410 Channel Closed`; for the payer this is a payment that is required and not made,
 * so it becomes a 402 with the same challenge and problem (its reason says why).
 *
 * @module
 */

/** mppx's problem type for a finalized or close-requested channel. */
const CHANNEL_CLOSED_PROBLEM = "https://paymentauth.org/problems/session/channel-finalized";

/** The response unchanged, unless it is mppx's 410 for a closed channel: then the same refusal as a 402. */
export async function closedChannelAsPaymentRequired(response: Response): Promise<Response> {
  if (response.status !== 410) return response;
  const problem = (await response
    .clone()
    .json()
    .catch(() => undefined)) as { type?: string } | undefined;
  if (problem?.type !== CHANNEL_CLOSED_PROBLEM) return response;
  return new Response(JSON.stringify({ ...problem, status: 402 }), {
    status: 402,
    headers: response.headers,
  });
}

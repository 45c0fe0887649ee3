/**
 * Why a payment or a sign-in was refused: a short, stable code for programs (`invalid_signature`,
 * `settlement_failed`, `siwx_expired`…) and one sentence for people. A 402 carries both, never a
 * library's error text.
 */
export type Refusal = { reason: string; message: string };

export const refusal = (reason: string, message: string): Refusal => ({ reason, message });

export const isRefusal = (value: unknown): value is Refusal =>
  typeof value === "object" && value !== null && "reason" in value && "message" in value;

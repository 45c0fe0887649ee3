import { CREDIT_MAX_USD, CREDIT_MIN_USD } from "./credit-amount.ts";

/**
 * How an agent holding only a wallet gets a key and credit, in plain lines: what `/llms.txt` and
 * `/.well-known/x402` both tell a gateway's agents when it has payment rails.
 */
export const SELF_SERVE_STEPS = [
  "No key yet? Sign in with your wallet (Sign-In-With-X): POST /v1/accounts answers 402 with the sign-in challenge in PAYMENT-REQUIRED; send it signed as SIGN-IN-WITH-X to open your account and get its first key.",
  `POST /v1/credits with {amount} (${CREDIT_MIN_USD} to ${CREDIT_MAX_USD} USD) buys credit for the account your paying wallet owns: x402 exact or an MPP charge of that amount. Send Idempotency-Key to retry safely.`,
  "POST /v1/keys, GET /v1/keys and DELETE /v1/keys/{id} manage your keys, signed in with the same wallet.",
];

/**
 * `@app/payments/testing`: what a service's test harness needs to pay the service on the local chain
 * it started (the chain reached from the service's credentials, the official x402 client for a
 * wallet, a SIWX challenge answered), written once for every service's harness. It reaches
 * `@app/local-chain`, so production code never imports it.
 *
 * @module
 */
export { answerSignInChallenge, localPayerClient, type PayerScheme } from "./payer.ts";
export { type ServiceChain, serviceChainOf } from "./service-chain.ts";

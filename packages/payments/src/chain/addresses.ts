/**
 * Canonical addresses: the same on every chain that has these contracts (Permit2, the x402 Permit2
 * proxies, the CREATE2 deployer, Multicall3) and Tempo's pathUSD. Nothing here is local-only;
 * the local chain (`@app/local-chain`) installs or finds its contracts at these addresses.
 *
 * @module
 */
import type { Address } from "viem";

/** Uniswap Permit2 (predeployed by `anvil --network tempo`; same address on every chain). */
export const PERMIT2_ADDRESS: Address = "0x000000000022D473030F116dDEE9F6B43aC78BA3";
/** Where `@x402/evm` expects the `exact` Permit2 proxy (`x402ExactPermit2ProxyAddress`). */
export const X402_EXACT_PERMIT2_PROXY_ADDRESS: Address = "0x402085c248EeA27D92E8b30b2C58ed07f9E20001";
/** Where `@x402/evm` expects the `upto` Permit2 proxy (`x402UptoPermit2ProxyAddress`). */
export const X402_UPTO_PERMIT2_PROXY_ADDRESS: Address = "0x4020A4f3b7b90ccA423B9fabCc0CE57C6C240002";
/** Arachnid's deterministic CREATE2 deployer (predeployed by anvil). Calldata = salt ‖ initcode. */
export const CREATE2_DEPLOYER_ADDRESS: Address = "0x4e59b44847b379578588920cA78FbF26c0B4956C";
/** Multicall3 (predeployed by anvil; x402's facilitator uses it for failure diagnostics). */
export const MULTICALL3_ADDRESS: Address = "0xcA11bde05977b3631167028862bE2a173976CA11";
/** pathUSD, Tempo's predeployed TIP-20 (6 decimals; `anvil --network tempo` has it too). */
export const PATH_USD_ADDRESS: Address = "0x20c0000000000000000000000000000000000000";

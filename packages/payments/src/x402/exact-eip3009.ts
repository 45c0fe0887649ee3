/**
 * x402 `exact` over EIP-3009 for payers with a plain ECDSA signature, without the pure-JS work
 * of `@x402/evm`'s facilitator: the signature is recovered natively (libsecp256k1), the
 * simulation is one `eth_estimateGas` whose answer is also the settlement's gas, and a payment
 * verified here moments before is settled without being verified again. Everything else (Permit2,
 * smart-wallet signatures, ERC-6492) goes to `@x402/evm`'s scheme, which this one wraps.
 *
 * The rules are `@x402/evm`'s, in its order and with its reason codes: scheme, EIP-712 domain,
 * network, signature by `from`, recipient, `validBefore`/`validAfter` window, value, the asset
 * is a contract, then the chain's simulation (the nonce unused, the balance sufficient, the
 * token's own signature check), a failed one diagnosed as `@x402/evm` does.
 *
 * @module
 */
import type { PendingSettlementStore } from "@x402/core/facilitator";
import type {
  FacilitatorContext,
  Network,
  PaymentPayload,
  PaymentRequirements,
  SchemeNetworkFacilitator,
  SettleResponse,
  VerifyResponse,
} from "@x402/core/types";
import { eip3009ABI, resolveDataSuffix } from "@x402/evm";
import type { ExactEvmScheme } from "@x402/evm/exact/facilitator";
import {
  type Address,
  concat,
  encodeAbiParameters,
  encodeFunctionData,
  type Hex,
  hashDomain,
  keccak256,
  toHex,
} from "viem";
import { recoverSigner } from "../crypto/signatures.ts";
import type { SettlementSender } from "./settlement-sender.ts";

/** `@x402/evm`'s reason codes for `exact` (the same strings, so callers see no difference). */
export const EXACT_REASONS = {
  invalidScheme: "invalid_exact_evm_scheme",
  networkMismatch: "invalid_exact_evm_network_mismatch",
  missingDomain: "invalid_exact_evm_missing_eip712_domain",
  recipientMismatch: "invalid_exact_evm_recipient_mismatch",
  invalidSignature: "invalid_exact_evm_signature",
  validBefore: "invalid_exact_evm_payload_authorization_valid_before",
  validAfter: "invalid_exact_evm_payload_authorization_valid_after",
  valueMismatch: "invalid_exact_evm_payload_authorization_value_mismatch",
  transactionFailed: "invalid_exact_evm_transaction_failed",
  transferEventMismatch: "invalid_exact_evm_transfer_event_mismatch",
  tokenNameMismatch: "invalid_exact_evm_token_name_mismatch",
  tokenVersionMismatch: "invalid_exact_evm_token_version_mismatch",
  eip3009NotSupported: "invalid_exact_evm_eip3009_not_supported",
  nonceUsed: "invalid_exact_evm_nonce_already_used",
  insufficientBalance: "invalid_exact_evm_insufficient_balance",
  simulationFailed: "invalid_exact_evm_transaction_simulation_failed",
  assetNotContract: "asset_not_deployed_contract",
  settlementPending: "settlement_pending",
} as const;

/** How long a verification is carried to its settlement (one use). */
const VERIFIED_TTL_MS = 10 * 60_000;
const VERIFIED_MAX = 10_000;
/** Like `@x402/evm`: an authorisation expiring within this many seconds is refused. */
const VALID_BEFORE_MARGIN_SECONDS = 6n;

type Authorization = {
  from: string;
  to: string;
  value: string;
  validAfter: string;
  validBefore: string;
  nonce: string;
};
type Eip3009Payload = { signature: Hex; authorization: Authorization };

/** What this scheme needs of the chain besides the settlement sender. */
export interface ExactChainReads {
  /** Contract code at `address` (`0x` for none). */
  getCode(address: Address): Promise<Hex>;
  /** `eth_call` of `data` on `to` from the facilitator, with at most `gas`; throws on revert. */
  call(to: Address, data: Hex, gas?: bigint): Promise<Hex>;
}

const TYPEHASH = keccak256(
  toHex(
    "TransferWithAuthorization(address from,address to,uint256 value,uint256 validAfter,uint256 validBefore,bytes32 nonce)",
  ),
);
const TRANSFER_TOPIC = keccak256(toHex("Transfer(address,address,uint256)"));

/** `@x402/evm`'s EIP-3009 exact facilitator with the fast path described above. */
export class NativeExactEvmScheme implements SchemeNetworkFacilitator {
  readonly scheme = "exact";
  readonly caipFamily = "eip155:*";
  /** Payments verified here and not settled yet: the verification's key and when. */
  private readonly verified = new Map<string, number>();
  private readonly domains = new Map<string, Hex>();
  private readonly contracts = new Set<string>();
  /** Per token: gas a transfer was shown to fit in (an estimate and a half), for simulations and settlements. */
  private readonly gasBudgets = new Map<string, bigint>();
  private readonly fallback: ExactEvmScheme;
  private readonly reads: ExactChainReads;
  private readonly sender: SettlementSender;
  private readonly pending: PendingSettlementStore;

  /**
   * `fallback` takes what is not a plain EIP-3009 ECDSA payment; `pending` is the store of
   * settlements left pending, shared with it.
   */
  constructor(
    fallback: ExactEvmScheme,
    reads: ExactChainReads,
    sender: SettlementSender,
    pending: PendingSettlementStore,
  ) {
    this.fallback = fallback;
    this.reads = reads;
    this.sender = sender;
    this.pending = pending;
  }

  getExtra(network: Network) {
    return this.fallback.getExtra(network);
  }

  getSigners(network: string) {
    return this.fallback.getSigners(network);
  }

  async verify(
    payload: PaymentPayload,
    requirements: PaymentRequirements,
    context?: FacilitatorContext,
  ): Promise<VerifyResponse> {
    const eip3009 = ecdsaEip3009(payload);
    if (!eip3009) return this.fallback.verify(payload, requirements, context);
    const checked = await this.check(payload, requirements, eip3009, true);
    if (checked === "fallback") return this.fallback.verify(payload, requirements, context);
    if (checked.response.isValid) this.remember(verificationKey(payload, requirements));
    return checked.response;
  }

  async settle(
    payload: PaymentPayload,
    requirements: PaymentRequirements,
    context?: FacilitatorContext,
  ): Promise<SettleResponse> {
    const eip3009 = ecdsaEip3009(payload);
    if (!eip3009) return this.fallback.settle(payload, requirements, context);
    const network = payload.accepted.network;
    const payer = eip3009.authorization.from;
    const fail = (errorReason: string, transaction = ""): SettleResponse => ({
      success: false,
      errorReason,
      transaction,
      network,
      payer,
    });
    // A settlement left pending is awaited again, never sent again, for as long as it is pending.
    // Keyed on the authorisation (token, payer, nonce), not the signature's spelling.
    const pendingKey = authorizationKey(requirements.asset, eip3009.authorization);
    const pendingTx = await this.pending.get(pendingKey);
    if (pendingTx) {
      const receipt = await this.sender.receipt(pendingTx as Hex);
      if (receipt) await this.pending.delete(pendingKey);
      return this.outcome(pendingTx as Hex, requirements, eip3009, network, receipt);
    }
    // The same payment verified here moments before is not verified again: every check of a
    // verification is a function of the payload and the requirements, both part of its key, but
    // time, which is checked again. Anything else is verified in full first (as `@x402/evm` does).
    if (this.take(verificationKey(payload, requirements))) {
      const expired = windowRefusal(eip3009.authorization);
      if (expired) return fail(expired);
    } else {
      const checked = await this.check(payload, requirements, eip3009, false);
      if (checked === "fallback") return this.fallback.settle(payload, requirements, context);
      if (!checked.response.isValid)
        return fail(checked.response.invalidReason ?? EXACT_REASONS.invalidScheme);
    }
    const asset = requirements.asset as Address;
    const suffix = await resolveDataSuffix(context, {
      paymentPayload: payload,
      paymentRequirements: requirements,
    });
    const data = transferCalldata(eip3009, suffix);
    // Simulated in the send's own turn, after every earlier settlement of this key has mined: a
    // payer whose balance another settlement just spent is refused here, and nothing is sent.
    const sent = await this.sender.send(asset, data, () => this.simulate(asset, data));
    if (sent.kind === "refused")
      return { ...fail(transferErrorReason(sent.error)), errorMessage: message(sent.error) };
    // No receipt with the send (mining stalled, a lost connection): it may be out; wait for one.
    const receipt = sent.receipt ?? (await this.sender.receipt(sent.hash));
    const response = await this.outcome(sent.hash, requirements, eip3009, network, receipt);
    if (!response.success && response.errorReason === EXACT_REASONS.settlementPending) {
      await this.pending.set(pendingKey, sent.hash);
    }
    return response;
  }

  /** The settle response for a sent transaction, from its receipt (none yet: pending). */
  private outcome(
    hash: Hex,
    requirements: PaymentRequirements,
    payload: Eip3009Payload,
    network: Network,
    receipt: TransferReceipt | undefined,
  ): SettleResponse {
    const payer = payload.authorization.from;
    const base = { transaction: hash, network, payer };
    if (!receipt) return { ...base, success: false, errorReason: EXACT_REASONS.settlementPending };
    if (receipt.status !== "0x1")
      return { ...base, success: false, errorReason: EXACT_REASONS.transactionFailed };
    if (!hasTransfer(receipt, requirements.asset, payload.authorization)) {
      return { ...base, success: false, errorReason: EXACT_REASONS.transferEventMismatch };
    }
    return { ...base, success: true };
  }

  /**
   * `@x402/evm`'s EIP-3009 verification, in its order; `"fallback"` when the signature is not
   * `from`'s ECDSA signature and `from` has code (a smart wallet: `@x402/evm` asks it, ERC-1271).
   */
  private async check(
    payload: PaymentPayload,
    requirements: PaymentRequirements,
    eip3009: Eip3009Payload,
    simulate: boolean,
  ): Promise<{ response: VerifyResponse; gas: bigint } | "fallback"> {
    const auth = eip3009.authorization;
    const payer = auth.from;
    const refuse = (invalidReason: string, invalidMessage?: string) => ({
      response: { isValid: false, invalidReason, payer, ...(invalidMessage ? { invalidMessage } : {}) },
      gas: 0n,
    });
    if (payload.accepted.scheme !== "exact" || requirements.scheme !== "exact") {
      return refuse(EXACT_REASONS.invalidScheme);
    }
    const extra = requirements.extra as { name?: unknown; version?: unknown } | undefined;
    if (
      typeof extra?.name !== "string" ||
      !extra.name ||
      typeof extra.version !== "string" ||
      !extra.version
    ) {
      return refuse(EXACT_REASONS.missingDomain);
    }
    if (payload.accepted.network !== requirements.network) return refuse(EXACT_REASONS.networkMismatch);
    const chainId = chainIdOf(requirements.network);
    if (chainId === undefined || !isAddress(requirements.asset) || !isAddress(requirements.payTo)) {
      return refuse(EXACT_REASONS.invalidScheme);
    }
    const digest = this.digest(extra.name, extra.version, chainId, requirements.asset, auth);
    const signer = digest ? recoverSigner(digest, eip3009.signature) : undefined;
    if (!signer || signer.toLowerCase() !== payer.toLowerCase()) {
      // Not from's ECDSA signature: refused for an EOA, asked of a smart wallet by @x402/evm.
      const code = await this.reads.getCode(payer as Address).catch(() => "0x");
      if (digest && code !== "0x") return "fallback";
      return refuse(EXACT_REASONS.invalidSignature);
    }
    if (auth.to.toLowerCase() !== requirements.payTo.toLowerCase())
      return refuse(EXACT_REASONS.recipientMismatch);
    const window = windowRefusal(auth);
    if (window) return refuse(window);
    if (BigInt(auth.value) !== BigInt(requirements.amount)) return refuse(EXACT_REASONS.valueMismatch);
    if (!(await this.isContract(requirements.asset as Address)))
      return refuse(EXACT_REASONS.assetNotContract);
    if (!simulate) return { response: { isValid: true, payer }, gas: 0n };
    try {
      const gas = await this.simulate(requirements.asset as Address, transferCalldata(eip3009));
      return { response: { isValid: true, payer }, gas };
    } catch (error) {
      const reason = await this.diagnose(requirements, auth);
      return refuse(reason, message(error));
    }
  }

  /**
   * Runs the transfer on the chain's latest state without sending it (`eth_call`), within the
   * token's gas budget, and answers that budget: a transaction with that much gas runs as the call
   * did. The budget is `eth_estimateGas`'s answer and a half, estimated on the token's first
   * transfer and again whenever a call fails (a transfer grown past it, or a refusal: then the
   * estimate throws with the node's reason). An estimate costs the node a binary search, several
   * times a call.
   */
  private async simulate(asset: Address, data: Hex): Promise<bigint> {
    const key = asset.toLowerCase();
    const budget = this.gasBudgets.get(key);
    if (budget !== undefined) {
      const ran = await this.reads.call(asset, data, budget).then(
        () => true,
        () => false,
      );
      if (ran) return budget;
    }
    const estimate = await this.sender.estimateGas(asset, data);
    const grown = estimate + estimate / 2n;
    const next = budget !== undefined && budget > grown ? budget : grown;
    this.gasBudgets.set(key, next);
    return next;
  }

  /** Why a simulation failed, as `@x402/evm` tells it: nonce, token name and version, balance. */
  private async diagnose(requirements: PaymentRequirements, auth: Authorization): Promise<string> {
    const asset = requirements.asset as Address;
    const read = (functionName: "balanceOf" | "name" | "version" | "authorizationState", args?: unknown[]) =>
      this.reads
        .call(asset, encodeFunctionData({ abi: eip3009ABI, functionName, args } as never))
        .then((result) => ({ ok: true as const, result }))
        .catch(() => ({ ok: false as const, result: "0x" as Hex }));
    const [balance, name, version, state] = await Promise.all([
      read("balanceOf", [auth.from]),
      read("name"),
      read("version"),
      read("authorizationState", [auth.from, auth.nonce]),
    ]);
    const extra = requirements.extra as { name?: string; version?: string };
    const text = (hex: Hex) => {
      try {
        const length = Number(BigInt(`0x${hex.slice(66, 130)}`));
        return Buffer.from(hex.slice(130, 130 + length * 2), "hex").toString("utf8");
      } catch {
        return undefined;
      }
    };
    if (!state.ok || state.result.length < 66) return EXACT_REASONS.eip3009NotSupported;
    if (BigInt(state.result) !== 0n) return EXACT_REASONS.nonceUsed;
    if (name.ok && extra.name && text(name.result) !== extra.name) return EXACT_REASONS.tokenNameMismatch;
    if (version.ok && extra.version && text(version.result) !== extra.version) {
      return EXACT_REASONS.tokenVersionMismatch;
    }
    if (balance.ok && balance.result.length >= 66 && BigInt(balance.result) < BigInt(requirements.amount)) {
      return EXACT_REASONS.insufficientBalance;
    }
    return EXACT_REASONS.simulationFailed;
  }

  /** The EIP-712 digest of the authorisation (its domain separator kept per token), or undefined if unencodable. */
  private digest(name: string, version: string, chainId: number, asset: string, auth: Authorization) {
    try {
      const domainKey = `${name}\0${version}\0${chainId}\0${asset.toLowerCase()}`;
      let separator = this.domains.get(domainKey);
      if (!separator) {
        separator = hashDomain({
          domain: { name, version, chainId: BigInt(chainId), verifyingContract: asset as Address },
          types: { EIP712Domain: DOMAIN_FIELDS },
        });
        if (this.domains.size > 1_000) this.domains.clear();
        this.domains.set(domainKey, separator);
      }
      const struct = keccak256(
        encodeAbiParameters(STRUCT_PARAMS, [
          TYPEHASH,
          auth.from as Address,
          auth.to as Address,
          BigInt(auth.value),
          BigInt(auth.validAfter),
          BigInt(auth.validBefore),
          auth.nonce as Hex,
        ]),
      );
      return keccak256(concat(["0x1901", separator, struct]));
    } catch {
      return undefined;
    }
  }

  /** Whether the asset has code; a contract found once is not asked again. */
  private async isContract(asset: Address): Promise<boolean> {
    const key = asset.toLowerCase();
    if (this.contracts.has(key)) return true;
    const code = await this.reads.getCode(asset);
    if (code === "0x") return false;
    this.contracts.add(key);
    return true;
  }

  private remember(key: string) {
    const now = Date.now();
    if (this.verified.size >= VERIFIED_MAX) {
      for (const [old, at] of this.verified) {
        if (now - at > VERIFIED_TTL_MS || this.verified.size >= VERIFIED_MAX) this.verified.delete(old);
        else break;
      }
    }
    this.verified.delete(key);
    this.verified.set(key, now);
  }

  /** Whether this very payment was verified here lately; once (a second settle verifies in full). */
  private take(key: string): boolean {
    const at = this.verified.get(key);
    if (at === undefined) return false;
    this.verified.delete(key);
    return Date.now() - at <= VERIFIED_TTL_MS;
  }
}

const DOMAIN_FIELDS = [
  { name: "name", type: "string" },
  { name: "version", type: "string" },
  { name: "chainId", type: "uint256" },
  { name: "verifyingContract", type: "address" },
] as const;
const STRUCT_PARAMS = [
  { type: "bytes32" },
  { type: "address" },
  { type: "address" },
  { type: "uint256" },
  { type: "uint256" },
  { type: "uint256" },
  { type: "bytes32" },
] as const;

/** A settlement transaction's receipt, as the node sent it (only what is read here). */
export type TransferReceipt = {
  status: string;
  logs: { address: string; topics: string[]; data: string }[];
};

const HEX_ADDRESS = /^0x[0-9a-fA-F]{40}$/;
const isAddress = (value: unknown): value is string => typeof value === "string" && HEX_ADDRESS.test(value);
const HEX_32 = /^0x[0-9a-fA-F]{64}$/;
const UINT = /^\d{1,78}$/;

/** The EIP-3009 payload with a 65-byte signature and well-formed fields, or undefined (`@x402/evm`'s case). */
function ecdsaEip3009(payload: PaymentPayload): Eip3009Payload | undefined {
  const inner = payload.payload as Partial<Eip3009Payload> & { permit2Authorization?: unknown };
  if (!inner || "permit2Authorization" in inner) return undefined;
  const auth = inner.authorization;
  if (typeof inner.signature !== "string" || !/^0x[0-9a-fA-F]{130}$/.test(inner.signature)) return undefined;
  if (!auth || !isAddress(auth.from) || !isAddress(auth.to) || !HEX_32.test(String(auth.nonce)))
    return undefined;
  if (![auth.value, auth.validAfter, auth.validBefore].every((n) => typeof n === "string" && UINT.test(n))) {
    return undefined;
  }
  return inner as Eip3009Payload;
}

/** Names one payment and what it was verified against: any difference is another verification. */
/** An EIP-3009 authorisation's identity: the token, its payer and nonce (one use on chain). */
function authorizationKey(asset: string, authorization: Authorization): string {
  return `${asset}:${authorization.from}:${authorization.nonce}`.toLowerCase();
}

function verificationKey(payload: PaymentPayload, requirements: PaymentRequirements): string {
  const { signature, authorization: a } = payload.payload as Eip3009Payload;
  const extra = requirements.extra as { name?: unknown; version?: unknown } | undefined;
  return JSON.stringify([
    payload.accepted.scheme,
    payload.accepted.network,
    requirements.scheme,
    requirements.network,
    requirements.asset.toLowerCase(),
    requirements.payTo.toLowerCase(),
    requirements.amount,
    extra?.name,
    extra?.version,
    signature.toLowerCase(),
    a.from.toLowerCase(),
    a.to.toLowerCase(),
    a.value,
    a.validAfter,
    a.validBefore,
    a.nonce.toLowerCase(),
  ]);
}

function chainIdOf(network: string): number | undefined {
  const match = /^eip155:(\d{1,15})$/.exec(network);
  return match ? Number(match[1]) : undefined;
}

/** The authorisation's time window now, as `@x402/evm` checks it (this process's clock). */
function windowRefusal(auth: Authorization): string | undefined {
  const now = BigInt(Math.floor(Date.now() / 1000));
  if (BigInt(auth.validBefore) < now + VALID_BEFORE_MARGIN_SECONDS) return EXACT_REASONS.validBefore;
  if (BigInt(auth.validAfter) > now) return EXACT_REASONS.validAfter;
  return undefined;
}

/** `transferWithAuthorization(from, to, value, validAfter, validBefore, nonce, v, r, s)` calldata. */
function transferCalldata(payload: Eip3009Payload, suffix?: Hex): Hex {
  const { authorization: a, signature } = payload;
  const v = Number.parseInt(signature.slice(130, 132), 16);
  const call = encodeFunctionData({
    abi: eip3009ABI,
    functionName: "transferWithAuthorization",
    args: [
      a.from as Address,
      a.to as Address,
      BigInt(a.value),
      BigInt(a.validAfter),
      BigInt(a.validBefore),
      a.nonce as Hex,
      v < 27 ? v + 27 : v,
      `0x${signature.slice(2, 66)}`,
      `0x${signature.slice(66, 130)}`,
    ],
  } as never);
  return suffix && suffix !== "0x" ? concat([call, suffix]) : call;
}

/** Whether the receipt logs the token's transfer of exactly this authorisation. */
function hasTransfer(receipt: TransferReceipt, asset: string, auth: Authorization): boolean {
  const topic = (address: string) => `0x${address.slice(2).toLowerCase().padStart(64, "0")}`;
  return receipt.logs.some(
    (log) =>
      log.address.toLowerCase() === asset.toLowerCase() &&
      log.topics[0]?.toLowerCase() === TRANSFER_TOPIC &&
      log.topics[1]?.toLowerCase() === topic(auth.from) &&
      log.topics[2]?.toLowerCase() === topic(auth.to) &&
      log.data.length >= 66 &&
      BigInt(log.data.slice(0, 66)) === BigInt(auth.value),
  );
}

const message = (error: unknown) => (error instanceof Error ? error.message : String(error)).slice(0, 400);

/** The reason code for a transfer the node refused (or whose estimate reverted), from its message. */
function transferErrorReason(error: unknown): string {
  const text = message(error);
  if (/AuthorizationExpired|authorization.*(expired|valid before)/i.test(text))
    return EXACT_REASONS.validBefore;
  if (/AuthorizationNotYetValid|authorization.*not.*valid/i.test(text)) return EXACT_REASONS.validAfter;
  if (/AuthorizationUsed|AuthorizationAlreadyUsed|authorization.*used/i.test(text))
    return EXACT_REASONS.nonceUsed;
  if (/ERC20InsufficientBalance|exceeds.*balance|insufficient.*balance/i.test(text)) {
    return EXACT_REASONS.insufficientBalance;
  }
  if (/SignerMismatch|InvalidSignature|invalid.*signature/i.test(text)) return EXACT_REASONS.invalidSignature;
  return EXACT_REASONS.transactionFailed;
}

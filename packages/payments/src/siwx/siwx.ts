import type { Clock } from "@app/core";
import type { Database } from "@app/db";
import {
  buildSIWxSchema,
  type EVMMessageVerifier,
  parseSIWxHeader,
  SIGN_IN_WITH_X,
  type SIWxPayload,
  validateSIWxMessage,
  verifySIWxSignature,
} from "@x402/extensions/sign-in-with-x";
import { getAddress } from "viem";
import { createSiweMessage } from "viem/siwe";
import { isMessageSignedBy } from "../crypto/signatures.ts";
import { SiwxNonces } from "./nonces.ts";

/** The failures a SIWX check answers with (402 bodies `{error, message}`). */
export type SiwxFailureCode =
  | "siwx_missing_header"
  | "siwx_malformed"
  | "siwx_invalid_signature"
  | "siwx_expired"
  | "siwx_nonce_used"
  | "siwx_wrong_resource";

export class SiwxError extends Error {
  constructor(
    readonly code: SiwxFailureCode,
    message: string,
  ) {
    super(message);
    this.name = "SiwxError";
  }
}

/** A wallet that proved control of its key for this request. */
export type SiwxIdentity = { wallet: `0x${string}`; chainId: string; verifiedAt: Date };

export type SiwxOptions = {
  /** The service whose sign-ins these are: its nonces are keyed apart from every other service's. */
  service: string;
  /**
   * The table spent nonces are kept in until they would have expired (`schema.table`, with
   * `nonce text PRIMARY KEY, expires_at timestamptz NOT NULL`), in the service's own schema.
   */
  spentNonces: string;
  /** Signs issued nonces; the same on every instance (derived from the service's MPP secret). */
  nonceSecret: string;
  /** The service's public origin: SIWX domain and URI must match it (never the Host header). */
  origin: () => URL;
  /** The CAIP-2 chain wallets sign in on, e.g. `eip155:1337`. */
  network: `eip155:${number}`;
  clock: Clock;
  /** How long an issued nonce may be used. */
  ttlMs?: number;
  /** Verifies signatures; default: plain ECDSA (EOAs), recovered natively. */
  evmVerifier?: EVMMessageVerifier;
};

const MAX_HEADER_BYTES = 8 * 1024;

/** The default message check: an EOA's EIP-191 signature, recovered natively (libsecp256k1). */
const nativeEoaVerifier: EVMMessageVerifier = async ({ address, message, signature }) =>
  isMessageSignedBy(address, message, signature as `0x${string}`);

const STATEMENT = "Sign in to verify your wallet identity";

/** The EIP-4361 message of an EVM sign-in, formatted by viem; "" when it cannot be formatted. */
function siweMessageOf(payload: SIWxPayload): string {
  try {
    return createSiweMessage({
      domain: payload.domain,
      address: getAddress(payload.address),
      statement: payload.statement,
      uri: payload.uri,
      version: "1",
      chainId: Number(payload.chainId.split(":")[1]),
      nonce: payload.nonce,
      issuedAt: new Date(payload.issuedAt),
      ...(payload.expirationTime ? { expirationTime: new Date(payload.expirationTime) } : {}),
      ...(payload.notBefore ? { notBefore: new Date(payload.notBefore) } : {}),
      ...(payload.requestId ? { requestId: payload.requestId } : {}),
      ...(payload.resources ? { resources: payload.resources } : {}),
    });
  } catch {
    return "";
  }
}

const EXPIRED_CODES = new Set([
  "invalid_siwx_issued_at_too_old",
  "invalid_siwx_expired",
  "invalid_siwx_expiration_time",
  "invalid_siwx_not_yet_valid",
]);

/**
 * Sign-In-With-X (the x402 `sign-in-with-x` extension: CAIP-122 payload, EIP-4361
 * message, base64 JSON in the `SIGN-IN-WITH-X` header). Nonces are issued here,
 * signed and stateless ({@link SiwxNonces}), single use and short lived: a signed
 * message works once on any instance and never after it expires, and a 402 nobody
 * answers stores nothing.
 */
export class SiwxAuthenticator {
  private readonly ttlMs: number;
  private readonly nonces: SiwxNonces;

  constructor(
    private readonly db: Database,
    private readonly options: SiwxOptions,
  ) {
    if (!/^[a-z_][a-z0-9_]*\.[a-z_][a-z0-9_]*$/.test(options.spentNonces)) {
      throw new Error(`spentNonces must name a table as schema.table, not ${options.spentNonces}`);
    }
    this.ttlMs = options.ttlMs ?? 5 * 60_000;
    this.nonces = new SiwxNonces(options.nonceSecret, options.service);
  }

  /** A fresh challenge for `PaymentRequired.extensions`, with a newly issued nonce. */
  async challenge(path: string): Promise<Record<string, unknown>> {
    const origin = this.options.origin();
    const now = this.options.clock.now();
    const expires = new Date(now.getTime() + this.ttlMs);
    const nonce = this.nonces.issue(now);
    return {
      [SIGN_IN_WITH_X]: {
        info: {
          domain: origin.host,
          uri: new URL(path, origin).toString(),
          version: "1",
          statement: STATEMENT,
          nonce,
          issuedAt: now.toISOString(),
          expirationTime: expires.toISOString(),
        },
        supportedChains: [{ chainId: this.options.network, type: "eip191" }],
        schema: buildSIWxSchema(),
      },
    };
  }

  /**
   * Checks a `SIGN-IN-WITH-X` header signed for the resource at `path` and spends its nonce;
   * throws {@link SiwxError} on any failure. A sign-in is good for the resource it was issued for
   * only: one for a profile read does not save a favorite.
   */
  async authenticate(header: string | undefined, path: string): Promise<SiwxIdentity> {
    if (!header)
      throw new SiwxError("siwx_missing_header", "Send a SIGN-IN-WITH-X header signed by your wallet.");
    const payload = this.parse(header);
    if (!this.isFor(payload, path)) {
      throw new SiwxError(
        "siwx_wrong_resource",
        `This sign-in was not issued for ${path}; sign the challenge of ${path}.`,
      );
    }
    if (payload.chainId !== this.options.network) {
      throw new SiwxError("siwx_malformed", `Sign in on ${this.options.network}, not ${payload.chainId}.`);
    }
    // The library judges `issuedAt` by this process's clock, with no tolerance: an instance a
    // second behind the one that issued the challenge would refuse it as "in the future". The
    // nonce carries the issue time signed by this service, and its expiry is checked from that
    // (`spendNonce`), so the library is shown an `issuedAt` no later than now.
    const nowMs = Date.now();
    const issuedAt = Date.parse(payload.issuedAt);
    const asOfNow = issuedAt > nowMs ? { ...payload, issuedAt: new Date(nowMs).toISOString() } : payload;
    const validation = await validateSIWxMessage(asOfNow, this.options.origin(), { maxAge: this.ttlMs });
    if (!validation.isValid) {
      const expired = EXPIRED_CODES.has(validation.invalidReason);
      throw new SiwxError(
        expired ? "siwx_expired" : "siwx_malformed",
        expired
          ? "This sign-in has expired or is not yet valid; sign a new challenge."
          : "This sign-in does not match the challenge (domain, URI, version or times); sign the challenge as issued.",
      );
    }
    if (!(await this.isSignedByAddress(payload))) {
      throw new SiwxError(
        "siwx_invalid_signature",
        "The signature does not match the address that signed in.",
      );
    }
    await this.spendNonce(payload.nonce);
    return {
      wallet: payload.address.toLowerCase() as `0x${string}`,
      chainId: payload.chainId,
      verifiedAt: this.options.clock.now(),
    };
  }

  /**
   * Whether the payload's address signed its EIP-4361 message. Fast path: the message formatted
   * with viem (the same text as the x402 library's, in 1 % of the time) and recovered natively;
   * when that does not match, the library's own check decides (another wallet kind, an unusual
   * field), so the fast path can only accept what the library would.
   */
  private async isSignedByAddress(payload: SIWxPayload): Promise<boolean> {
    if (
      !this.options.evmVerifier &&
      isMessageSignedBy(payload.address, siweMessageOf(payload), payload.signature as `0x${string}`)
    ) {
      return true;
    }
    const evmVerifier = this.options.evmVerifier ?? nativeEoaVerifier;
    const verified = await verifySIWxSignature(payload, { evmVerifier }).catch(() => ({
      isValid: false as const,
    }));
    return verified.isValid && verified.payer.toLowerCase() === payload.address.toLowerCase();
  }

  private isFor(payload: SIWxPayload, path: string): boolean {
    try {
      return new URL(payload.uri).pathname === path;
    } catch {
      return false;
    }
  }

  private parse(header: string): SIWxPayload {
    if (header.length > MAX_HEADER_BYTES)
      throw new SiwxError("siwx_malformed", "The SIGN-IN-WITH-X header is too large.");
    try {
      return parseSIWxHeader(header);
    } catch {
      throw new SiwxError(
        "siwx_malformed",
        "The SIGN-IN-WITH-X header is not a base64 JSON sign-in payload.",
      );
    }
  }

  private async spendNonce(nonce: string): Promise<void> {
    const issuedAt = this.nonces.issuedAt(nonce);
    const expiresAt = issuedAt && new Date(issuedAt.getTime() + this.ttlMs);
    if (!expiresAt || expiresAt <= this.options.clock.now()) {
      throw new SiwxError(
        "siwx_expired",
        "This sign-in nonce is unknown or expired; ask for a new challenge.",
      );
    }
    const spent = await this.db.query(
      `INSERT INTO ${this.options.spentNonces} (nonce, expires_at) VALUES ($1, $2)
       ON CONFLICT (nonce) DO NOTHING RETURNING 1`,
      [nonce, expiresAt],
    );
    if (spent.length === 0) {
      throw new SiwxError("siwx_nonce_used", "This sign-in message was already used; sign a new one.");
    }
  }
}

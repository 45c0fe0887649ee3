/**
 * Coinbase Developer Platform's request authentication for its hosted x402 facilitator: a short
 * JWT per request, signed with the API key (Ed25519, given as base64, or an EC P-256 key in PEM),
 * naming the one request it is for (`uris: ["POST api.cdp.coinbase.com/platform/v2/x402/settle"]`).
 *
 * @module
 */
import { createPrivateKey, type KeyObject, randomBytes, sign } from "node:crypto";
import type { FacilitatorAuthHeaders } from "./local-facilitator.ts";

export type CdpApiKey = { keyId: string; secret: string };

const ED25519_PKCS8_PREFIX = Buffer.from("302e020100300506032b657004220420", "hex");

/** The signing key and algorithm of a CDP API secret. */
function signingKey(secret: string): { key: KeyObject; alg: "EdDSA" | "ES256" } {
  if (secret.includes("BEGIN")) return { key: createPrivateKey(secret.replace(/\\n/g, "\n")), alg: "ES256" };
  const raw = Buffer.from(secret, "base64");
  if (raw.length !== 64) throw new Error("a CDP Ed25519 secret is 64 bytes of base64 (seed and public key)");
  const der = Buffer.concat([ED25519_PKCS8_PREFIX, raw.subarray(0, 32)]);
  return { key: createPrivateKey({ key: der, format: "der", type: "pkcs8" }), alg: "EdDSA" };
}

const base64url = (value: unknown) => Buffer.from(JSON.stringify(value)).toString("base64url");

/** A JWT for one request (`method`, `url`), valid two minutes from `now`. */
export function cdpJwt(apiKey: CdpApiKey, method: string, url: string, now = new Date()): string {
  const { key, alg } = signingKey(apiKey.secret);
  const target = new URL(url);
  const issuedAt = Math.floor(now.getTime() / 1000);
  const header = { alg, kid: apiKey.keyId, typ: "JWT", nonce: randomBytes(16).toString("hex") };
  const claims = {
    sub: apiKey.keyId,
    iss: "cdp",
    aud: ["cdp_service"],
    nbf: issuedAt,
    exp: issuedAt + 120,
    uris: [`${method.toUpperCase()} ${target.host}${target.pathname}`],
  };
  const signed = `${base64url(header)}.${base64url(claims)}`;
  const signature = sign(alg === "EdDSA" ? null : "sha256", Buffer.from(signed), {
    key,
    ...(alg === "ES256" ? { dsaEncoding: "ieee-p1363" as const } : {}),
  });
  return `${signed}.${signature.toString("base64url")}`;
}

/**
 * Per-request auth headers for a hosted facilitator at `baseUrl` authenticated by a CDP API key:
 * a fresh JWT for each of `/verify`, `/settle` and `/supported` on every call.
 */
export function cdpFacilitatorAuth(apiKey: CdpApiKey, baseUrl: string): FacilitatorAuthHeaders {
  signingKey(apiKey.secret);
  const bearer = (method: string, path: string) => ({
    Authorization: `Bearer ${cdpJwt(apiKey, method, `${baseUrl.replace(/\/$/, "")}${path}`)}`,
  });
  return async () => ({
    verify: bearer("POST", "/verify"),
    settle: bearer("POST", "/settle"),
    supported: bearer("GET", "/supported"),
  });
}

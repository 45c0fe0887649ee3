import { createHash, randomBytes } from "node:crypto";

/** A PKCE code verifier (RFC 7636: 43 characters of the unreserved set, 256 random bits). */
export function newPkceVerifier(): string {
  return randomBytes(32).toString("base64url");
}

/**
 * The S256 code challenge of a verifier, in the encoding the platform documents: RFC 7636's
 * BASE64URL (Google), or hex (TikTok Login Kit: "You must use hex encoding of SHA256 to generate
 * the code challenge"; a base64url one is refused with `invalid_request`).
 */
export function pkceChallenge(verifier: string, encoding: "base64url" | "hex"): string {
  return createHash("sha256").update(verifier).digest(encoding);
}

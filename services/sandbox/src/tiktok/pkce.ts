import { createHash } from "node:crypto";

/**
 * TikTok's PKCE challenge: the SHA-256 of the verifier, hex-encoded. Login Kit for Desktop: "You
 * must use hex encoding of SHA256 to generate the code challenge"; TikTok's Android SDK does the
 * same. RFC 7636's BASE64URL encoding does not match it, and TikTok answers `invalid_request`.
 */
export function tiktokPkceChallenge(verifier: string): string {
  return createHash("sha256").update(verifier).digest("hex");
}

import { describe, expect, it } from "vitest";
import { pkceChallenge } from "../../src/platforms/pkce.ts";

// RFC 7636, Appendix B: the verifier and its S256 challenge.
const VERIFIER = "dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk";
const RFC_CHALLENGE = "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM";
const HEX_CHALLENGE = "13d31e961a1ad8ec2f16b10c4c982e0876a878ad6df144566ee1894acb70f9c3";

describe("PKCE challenges, encoded as each platform documents", () => {
  it("is RFC 7636's base64url for Google and the hex digest for TikTok", () => {
    expect(pkceChallenge(VERIFIER, "base64url")).toBe(RFC_CHALLENGE);
    expect(pkceChallenge(VERIFIER, "hex")).toBe(HEX_CHALLENGE);
  });
});

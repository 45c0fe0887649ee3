import { generateKeyPairSync, verify } from "node:crypto";
import { describe, expect, it } from "vitest";
import { cdpFacilitatorAuth, cdpJwt } from "../src/index.ts";

function decode(jwt: string) {
  const [header, claims, signature] = jwt.split(".") as [string, string, string];
  return {
    header: JSON.parse(Buffer.from(header, "base64url").toString()),
    claims: JSON.parse(Buffer.from(claims, "base64url").toString()),
    signed: Buffer.from(`${header}.${claims}`),
    signature: Buffer.from(signature, "base64url"),
  };
}

describe("CDP facilitator authentication", () => {
  it("signs a JWT for one request with an Ed25519 key given as CDP gives it (base64 seed and public key)", () => {
    const { privateKey, publicKey } = generateKeyPairSync("ed25519");
    const seed = privateKey.export({ format: "der", type: "pkcs8" }).subarray(-32);
    const pub = publicKey.export({ format: "der", type: "spki" }).subarray(-32);
    const secret = Buffer.concat([seed, pub]).toString("base64");
    const now = new Date("2026-11-22T12:00:00Z");
    const jwt = decode(
      cdpJwt({ keyId: "key-1", secret }, "post", "https://api.cdp.coinbase.com/platform/v2/x402/settle", now),
    );
    expect(jwt.header).toMatchObject({ alg: "EdDSA", kid: "key-1", typ: "JWT" });
    expect(jwt.header.nonce).toMatch(/^[0-9a-f]{32}$/);
    expect(jwt.claims).toEqual({
      sub: "key-1",
      iss: "cdp",
      aud: ["cdp_service"],
      nbf: now.getTime() / 1000,
      exp: now.getTime() / 1000 + 120,
      uris: ["POST api.cdp.coinbase.com/platform/v2/x402/settle"],
    });
    expect(verify(null, jwt.signed, publicKey, jwt.signature)).toBe(true);
  });

  it("signs with an EC P-256 key in PEM (ES256), and each call gets fresh tokens for verify, settle and supported", async () => {
    const { privateKey, publicKey } = generateKeyPairSync("ec", { namedCurve: "P-256" });
    const secret = privateKey.export({ format: "pem", type: "sec1" }).toString();
    const headers = cdpFacilitatorAuth(
      { keyId: "key-2", secret },
      "https://api.cdp.coinbase.com/platform/v2/x402/",
    );
    const first = await headers();
    const second = await headers();
    const settle = decode((first.settle?.Authorization ?? "").replace(/^Bearer /, ""));
    expect(settle.header.alg).toBe("ES256");
    expect(settle.claims.uris).toEqual(["POST api.cdp.coinbase.com/platform/v2/x402/settle"]);
    expect(
      verify("sha256", settle.signed, { key: publicKey, dsaEncoding: "ieee-p1363" }, settle.signature),
    ).toBe(true);
    expect(decode((first.supported?.Authorization ?? "").slice(7)).claims.uris).toEqual([
      "GET api.cdp.coinbase.com/platform/v2/x402/supported",
    ]);
    expect(second.settle?.Authorization).not.toBe(first.settle?.Authorization);
  });

  it("refuses a secret that is neither", () => {
    expect(() => cdpFacilitatorAuth({ keyId: "k", secret: "c2hvcnQ=" }, "https://x.example")).toThrow(
      /64 bytes/,
    );
  });
});

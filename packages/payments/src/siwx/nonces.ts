import { createHmac, randomBytes, timingSafeEqual } from "node:crypto";

/**
 * Sign-in nonces that need no storage until they are spent: `<issued at, ms, 12 hex><random, 16
 * hex><HMAC of both, 32 hex>`, alphanumeric as EIP-4361 asks. The service can tell a nonce it
 * issued, and when, from the nonce alone, so an unanswered 402 stores nothing; only spent nonces
 * are kept (until they would have expired anyway) to refuse a replay.
 */
export class SiwxNonces {
  private readonly key: Buffer;

  /** `service` names whose nonces these are: each service's nonce key is its own. */
  constructor(secret: string, service: string) {
    this.key = createHmac("sha256", secret).update(`${service}: sign-in-with-x nonces`).digest();
  }

  issue(issuedAt: Date): string {
    const body = issuedAt.getTime().toString(16).padStart(12, "0") + randomBytes(8).toString("hex");
    return body + this.mac(body);
  }

  /** When a nonce was issued, or undefined when this service did not issue it. */
  issuedAt(nonce: string): Date | undefined {
    if (!/^[0-9a-f]{60}$/.test(nonce)) return undefined;
    const body = nonce.slice(0, 28);
    const expected = Buffer.from(this.mac(body), "hex");
    if (!timingSafeEqual(expected, Buffer.from(nonce.slice(28), "hex"))) return undefined;
    return new Date(Number.parseInt(body.slice(0, 12), 16));
  }

  private mac(body: string): string {
    return createHmac("sha256", this.key).update(body).digest("hex").slice(0, 32);
  }
}

import { createCipheriv, createDecipheriv, hkdfSync, randomBytes } from "node:crypto";

/** Seals text for storage (AES-256-GCM) and opens it again; tampering or a wrong key throws. */
export type TextSealer = {
  /** Encrypts `text`, bound to `context` (e.g. the row's key): opened elsewhere it fails. */
  seal(text: string, context?: string): string;
  open(sealed: string, context?: string): string;
};

const VERSION = "v1";
const IV_BYTES = 12;
const TAG_BYTES = 16;

/**
 * A sealer whose 256-bit key is derived (HKDF-SHA256) from a configured secret and
 * a purpose, so one secret serves several stores with unrelated keys. Sealed text
 * is `v1.` + base64url(iv ‖ tag ‖ ciphertext).
 */
export function createTextSealer(secret: string, purpose: string): TextSealer {
  if (secret.length < 32) throw new Error("A sealing secret needs at least 32 characters.");
  const key = Buffer.from(hkdfSync("sha256", secret, "platform-sealer", purpose, 32));
  return {
    seal(text, context = "") {
      const iv = randomBytes(IV_BYTES);
      const cipher = createCipheriv("aes-256-gcm", key, iv);
      cipher.setAAD(Buffer.from(context));
      const body = Buffer.concat([cipher.update(text, "utf8"), cipher.final()]);
      return `${VERSION}.${Buffer.concat([iv, cipher.getAuthTag(), body]).toString("base64url")}`;
    },
    open(sealed, context = "") {
      const [version, payload] = sealed.split(".");
      if (version !== VERSION || !payload) throw new Error("Not a sealed value.");
      const bytes = Buffer.from(payload, "base64url");
      const decipher = createDecipheriv("aes-256-gcm", key, bytes.subarray(0, IV_BYTES));
      decipher.setAAD(Buffer.from(context));
      decipher.setAuthTag(bytes.subarray(IV_BYTES, IV_BYTES + TAG_BYTES));
      return Buffer.concat([
        decipher.update(bytes.subarray(IV_BYTES + TAG_BYTES)),
        decipher.final(),
      ]).toString("utf8");
    },
  };
}

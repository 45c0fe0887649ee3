import { createECDH, createHash } from "node:crypto";
import { base58btc } from "multiformats/bases/base58";

/** The multicodec prefix of a compressed secp256k1 public key (`secp256k1-pub`, 0xe7, as a varint). */
const SECP256K1_PUB = [0xe7, 0x01];

/**
 * The `publicKeyMultibase` of an account's atproto signing key, as a PLC document's `Multikey`
 * verification method carries it: base58btc (`z…`) of the multicodec-prefixed compressed
 * secp256k1 point. The key is derived from the DID, so the document is the same at every start;
 * the sandbox never signs with it (no repository commits are signed).
 */
export function signingKeyMultibase(did: string): string {
  const ecdh = createECDH("secp256k1");
  ecdh.setPrivateKey(createHash("sha256").update(`sandbox atproto signing key ${did}`).digest());
  const point = ecdh.getPublicKey(undefined, "compressed");
  return base58btc.encode(new Uint8Array([...SECP256K1_PUB, ...point]));
}

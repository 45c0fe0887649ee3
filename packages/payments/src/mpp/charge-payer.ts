/**
 * Who pays an MPP one-shot charge, from what can be verified rather than what a credential
 * claims (`credential.source` is the client's word): a pull credential's signed Tempo transaction
 * names its sender by its signature; a push credential's transaction names the payer in its
 * transfer to the recipient, on chain.
 *
 * @module
 */
import { Credential } from "mppx";
import { type Address, type Client, type Hex, keccak256, parseEventLogs } from "viem";
import { getTransactionReceipt } from "viem/actions";
import { Abis, Transaction } from "viem/tempo";

/**
 * A charge credential's verified payer, an id naming the credential (its transaction's hash), and
 * how it pays: `pull` carries a signed transaction the server broadcasts; `push` names a
 * transaction already on chain (public, so it proves nothing about who presents it).
 */
export type ChargePayer = { payer: Address; credentialId: Hex; mode: "pull" | "push" };

export type ChargePayerOptions = { client: Client; currency: Address; recipient: Address };

const HASH = /^0x[0-9a-fA-F]{64}$/;
const SERIALIZED = /^0x(?:[0-9a-fA-F]{2}){1,65536}$/;

/**
 * Whether a credential proves its payer presents it now: a signed transaction the chain has not
 * seen (once broadcast it is public, and anyone could present it again).
 */
export async function isUnspentCredential(credential: ChargePayer, client: Client): Promise<boolean> {
  if (credential.mode !== "pull") return false;
  const receipt = await getTransactionReceipt(client, { hash: credential.credentialId }).catch(
    () => undefined,
  );
  return receipt === undefined;
}

/** The verified payer of a request's charge credential, or undefined when it has none. */
export async function chargePayerOf(
  request: Request,
  options: ChargePayerOptions,
): Promise<ChargePayer | undefined> {
  let payload: { type?: unknown; signature?: unknown; hash?: unknown };
  try {
    payload = Credential.fromRequest<typeof payload>(request).payload ?? {};
  } catch {
    return undefined;
  }
  if (payload.type === "transaction" && typeof payload.signature === "string") {
    return senderOf(payload.signature);
  }
  if (payload.type === "hash" && typeof payload.hash === "string" && HASH.test(payload.hash)) {
    return transferSenderOf(payload.hash as Hex, options);
  }
  return undefined;
}

/** The sender a signed Tempo transaction recovers to. */
function senderOf(serialized: string): ChargePayer | undefined {
  if (!SERIALIZED.test(serialized)) return undefined;
  try {
    const transaction = Transaction.deserialize(serialized as Hex) as { from?: Address; signature?: unknown };
    if (!transaction.signature || !transaction.from) return undefined;
    return {
      payer: transaction.from.toLowerCase() as Address,
      credentialId: keccak256(serialized as Hex),
      mode: "pull",
    };
  } catch {
    return undefined;
  }
}

/** The `from` of the transaction's first transfer of `currency` to the recipient. */
async function transferSenderOf(hash: Hex, options: ChargePayerOptions): Promise<ChargePayer | undefined> {
  const receipt = await getTransactionReceipt(options.client, { hash }).catch(() => undefined);
  if (receipt?.status !== "success") return undefined;
  const same = (a: string, b: string) => a.toLowerCase() === b.toLowerCase();
  for (const eventName of ["Transfer", "TransferWithMemo"] as const) {
    const logs = parseEventLogs({ abi: Abis.tip20, eventName, logs: receipt.logs }) as unknown as {
      address: Address;
      args: { from: Address; to: Address };
    }[];
    const paid = logs.find(
      (log) => same(log.address, options.currency) && same(log.args.to, options.recipient),
    );
    if (paid) return { payer: paid.args.from.toLowerCase() as Address, credentialId: hash, mode: "push" };
  }
  return undefined;
}

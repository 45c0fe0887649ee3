import { DEMO_BLUESKY, DEMO_BLUESKY_SELF_HOSTED } from "../demo.ts";

/** The PDSes of the sandbox's Bluesky network: the default one (as bsky.social) and a self-hosted one. */
export type PdsName = "default" | "pds2";

/** A Bluesky account and the PDS that hosts its repository. */
export type BlueskyAccount = {
  did: string;
  handle: string;
  email: string;
  password: string;
  appPassword: string;
  pds: PdsName;
};

/** Every account of the network: each lives on one PDS and has a did:plc in the PLC directory. */
export const BLUESKY_ACCOUNTS: readonly BlueskyAccount[] = [
  { ...DEMO_BLUESKY, pds: "default" },
  { ...DEMO_BLUESKY_SELF_HOSTED, pds: "pds2" },
];

/** The handle domains each PDS gives its accounts (`describeServer`'s `availableUserDomains`). */
export const HANDLE_DOMAINS: Record<PdsName, string[]> = {
  default: [".bsky.test"],
  pds2: [".pds2.test"],
};

const normalise = (identifier: string) => identifier.trim().toLowerCase().replace(/^@/, "");

/** The account a DID or handle names, on any PDS. */
export function findAccount(actor: string): BlueskyAccount | undefined {
  const wanted = normalise(actor);
  return BLUESKY_ACCOUNTS.find((account) => account.did === actor || account.handle === wanted);
}

/** The account createSession's identifier (handle, email or DID) names. */
export function findLoginAccount(identifier: string): BlueskyAccount | undefined {
  const wanted = normalise(identifier);
  return BLUESKY_ACCOUNTS.find((account) => [account.did, account.handle, account.email].includes(wanted));
}

/** The account a DID names, when it lives on the given PDS. */
export function hostedAccount(actor: string, pds: PdsName): BlueskyAccount | undefined {
  const account = findAccount(actor);
  return account?.pds === pds ? account : undefined;
}

/**
 * Client side of the MPP rails, on the official `mppx/client`: one-shot `tempo.charge` payments
 * through a payment-aware `fetch`, and `tempo.session` channels through `sessionManager`
 * (request mode and SSE). For tests and the `pay` CLI.
 *
 * @module
 */
import { Mppx, sessionManager, tempo } from "mppx/client";
import { type Address, type Hex, parseUnits } from "viem";
import { privateKeyToAccount } from "viem/accounts";
import { tempoClient } from "./chain.ts";
import { TIP20_DECIMALS } from "./constants.ts";

/** The official session manager (`mppx/client` `sessionManager`). */
export type MppSessionManager = ReturnType<typeof sessionManager>;

/** Options of {@link createMppClient}. */
export interface MppClientOptions {
  /** Tempo JSON-RPC URL: the reserve shim locally (never anvil directly), a Tempo RPC when hosted. */
  rpcUrl: string;
  /** Chain the client agrees to pay on; challenges for another chain are refused. */
  chainId: number;
  privateKey: Hex;
  /** Refuse one-shot charges above this decimal amount (default: no limit). */
  maxChargeAmount?: string;
  /** Token decimals for the decimal amounts (default 6). */
  decimals?: number;
  /** `fetch` used for all HTTP traffic (default `globalThis.fetch`). */
  fetch?: typeof globalThis.fetch;
}

/** Options of {@link MppClient.session}. */
export interface MppSessionOptions {
  /** Lifetime cap of this channel's cumulative vouchers, in decimal units; the opening deposit is ≤ this. */
  maxDeposit: string;
}

/** A paying MPP client. */
export interface MppClient {
  readonly address: Address;
  /**
   * `fetch` that answers a `tempo.charge` 402 by paying (client-signed TIP-20 transfer, broadcast
   * by the server) and retrying once with `Authorization: Payment …`.
   */
  fetch(input: string | URL | Request, init?: RequestInit): Promise<Response>;
  /** Builds the `Authorization: Payment …` value for a 402 charge response, without sending it. */
  createCredential(response: Response): Promise<string>;
  /**
   * A new session manager (one channel): `.fetch()` for request mode, `.sse()` for streams,
   * `.close()` to settle and refund. Opens the channel on the first paid request.
   */
  session(options: MppSessionOptions): MppSessionManager;
}

/** Creates an MPP client for one wallet. */
export function createMppClient(options: MppClientOptions): MppClient {
  const account = privateKeyToAccount(options.privateKey);
  const decimals = options.decimals ?? TIP20_DECIMALS;
  const client = tempoClient(options.rpcUrl, options.chainId, account);
  const getClient = () => client;
  const maxCharge =
    options.maxChargeAmount === undefined ? undefined : parseUnits(options.maxChargeAmount, decimals);

  const mppx = Mppx.create({
    methods: [tempo.charge({ account, getClient, expectedChainId: options.chainId })],
    polyfill: false,
    ...(options.fetch ? { fetch: options.fetch } : {}),
    onChallenge: async (challenge, { createCredential }) => {
      const amount = BigInt(String((challenge.request as { amount?: unknown }).amount ?? 0));
      if (maxCharge !== undefined && amount > maxCharge) {
        throw new Error(`charge of ${amount} exceeds the client's limit of ${maxCharge} (atomic units)`);
      }
      return createCredential();
    },
  });

  return {
    address: account.address,
    fetch: (input, init) => mppx.fetch(input, init),
    createCredential: (response) => mppx.createCredential(response),
    session: ({ maxDeposit }) =>
      sessionManager({
        account,
        getClient,
        decimals,
        maxDeposit,
        allowedChainIds: [options.chainId],
        ...(options.fetch ? { fetch: options.fetch } : {}),
      }),
  };
}

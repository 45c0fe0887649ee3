/**
 * Server side of the MPP rails: ready `mppx/server` instances for `tempo.charge` and
 * `tempo.session` (request mode and SSE), and small typed helpers for route handlers.
 *
 * Nothing here knows about the local chain. Local mode: `rpcUrl` = the reserve shim
 * (`@app/local-chain`'s `startLocalTempo().rpcUrl`), `chainId` 1337, `currency` pathUSD. Hosted mode: `rpcUrl` = a Tempo
 * RPC (e.g. `https://rpc.tempo.xyz`, chain 4217, or Moderato), `currency` = the TIP-20 to accept;
 * the reserve is the native precompile at the same canonical address.
 *
 * @module
 */
import { Mppx, type Store, tempo } from "mppx/server";
import type { Address, Hex } from "viem";
import { privateKeyToAccount } from "viem/accounts";
import { tempoClient } from "./chain.ts";
import { closedChannelAsPaymentRequired } from "./refusals.ts";
import { createSessionChannels, type SessionChannels } from "./session-channels.ts";
import { chargedWithin, type StreamController } from "./stream-metering.ts";

type SessionParameters = NonNullable<Parameters<typeof tempo.session>[0]>;
type MppxStore = NonNullable<SessionParameters["store"]>;

/** Per-unit price and channel size of a session route, in decimal currency units. */
export interface SessionPrice {
  /** Price of one unit (one request, or one streamed token). */
  amount: string;
  /** Suggested opening deposit: the client opens (and tops up) the channel by this much. */
  suggestedDeposit: string;
  /** What a unit is, advertised in the challenge (`request`, `token`). */
  unitType: string;
}

/** Prices of the fortune routes. */
export interface MppPrices {
  /** `/api/fortune/llm`: session, request mode. */
  readonly request: SessionPrice;
  /** `/api/fortune/stream`: session, SSE, charged per token. */
  readonly stream: SessionPrice;
}

/** Default prices: 0.001 per request (channel 0.01), 0.0001 per token (channel 0.05). */
export const DEFAULT_MPP_PRICES: MppPrices = {
  request: { amount: "0.001", suggestedDeposit: "0.01", unitType: "request" },
  stream: { amount: "0.0001", suggestedDeposit: "0.05", unitType: "token" },
};

/** Configuration of {@link createMppRails}. */
export interface MppRailsConfig {
  /** Tempo JSON-RPC URL: the reserve shim locally, a Tempo RPC when hosted. */
  rpcUrl: string;
  chainId: number;
  /** TIP-20 the routes are paid in (pathUSD locally). */
  currency: Address;
  decimals: number;
  /** Payee: receives charges and channel settlements (no key needed). */
  recipient: Address;
  /**
   * Operator key: signs and pays fees for on-chain `settle`/`close` of channels, and is advertised as
   * the channel operator. Needs fee-token balance (pathUSD locally, every dev account has some).
   */
  operatorPrivateKey: Hex;
  /** HMAC secret of stateless challenge ids (≥ 32 random bytes); the same on every instance. */
  secretKey: string;
  /** Realm advertised in challenges (the public host). */
  realm: string;
  /** Atomic store shared by all instances (`createDbStore`): channels, spent counters, replay keys. */
  store: MppxStore;
  /** Route prices (default {@link DEFAULT_MPP_PRICES}). */
  prices?: Partial<MppPrices>;
  /** Settle channels on chain while open, e.g. `{ amount: "0.005" }`; default: only at close. */
  settlementSchedule?: SessionParameters["settlementSchedule"];
  /** Called after each confirmed on-chain settle/close (audit log). */
  onSessionSettlement?: SessionParameters["onSessionSettlement"];
  /** How often a waiting SSE stream polls the store for a new voucher (default 50 ms). */
  ssePollingIntervalMs?: number;
  /**
   * How long a stream waits for the voucher that pays its next token before it ends
   * (default 30 000 ms). Without it a client that stops paying holds the stream open.
   */
  voucherWaitMs?: number;
}

/** A 402 issued by mppx (no credential, or a rejected one). */
export interface MppChallenge {
  status: 402;
  /** The complete mppx 402 response (problem+json body when a credential was rejected). */
  challenge: Response;
  /** Its `WWW-Authenticate: Payment …` value, to merge into a combined 402. */
  wwwAuthenticate: string;
}

/** Outcome of checking a request for an MPP payment. */
export type MppResult =
  | MppChallenge
  | {
      status: 200;
      /**
       * Adds `Payment-Receipt` to the route's response. For session management requests (voucher,
       * top-up, close POSTs) mppx substitutes its own response.
       */
      withReceipt(response: Response): Response;
    };

/** Outcome of {@link MppRails.stream}: a 402, or the SSE response (or a session management response). */
export type MppStreamResult = MppChallenge | { status: 200; response: Response };

function buildInstances(config: MppRailsConfig) {
  const operator = privateKeyToAccount(config.operatorPrivateKey);
  const getClient = () => tempoClient(config.rpcUrl, config.chainId, operator);
  const shared = { secretKey: config.secretKey, realm: config.realm };
  const session = {
    currency: config.currency,
    decimals: config.decimals,
    recipient: config.recipient,
    account: operator,
    operator: operator.address,
    chainId: config.chainId,
    getClient,
    store: config.store,
    settlementSchedule: config.settlementSchedule,
    onSessionSettlement: config.onSessionSettlement,
  } as const;
  return {
    charge: Mppx.create({
      ...shared,
      methods: [
        tempo.charge({
          currency: config.currency,
          decimals: config.decimals,
          recipient: config.recipient,
          getClient,
          store: config.store,
        }),
      ],
    }),
    session: Mppx.create({ ...shared, methods: [tempo.session({ ...session, sse: false })] }),
    stream: Mppx.create({
      ...shared,
      methods: [
        tempo.session({
          ...session,
          // Poll the shared store: a voucher POST may land on another server process.
          sse: { poll: true, pollingInterval: config.ssePollingIntervalMs ?? 50 },
        }),
      ],
    }),
  };
}

/** The `mppx/server` instances behind the rails, for advanced use. */
export type MppServers = ReturnType<typeof buildInstances>;

/** Ready rails for the fortune routes. */
export interface MppRails {
  readonly servers: MppServers;
  readonly prices: MppPrices;
  /** Session channels outside a request: inspect, settle, mark close-requested, watch close requests. */
  readonly channels: SessionChannels;
  /** True when the request carries an `Authorization: Payment …` credential. */
  hasCredential(request: Request): boolean;
  /** `WWW-Authenticate` value of a one-shot `tempo.charge` challenge for `amount`, bound to this request. */
  chargeChallenge(request: Request, amount: string, options?: ChargeOptions): Promise<string>;
  /** Verifies and settles (broadcasts) a one-shot charge credential for `amount`, or issues a challenge. */
  charge(request: Request, amount: string, options?: ChargeOptions): Promise<MppResult>;
  /** Session, request mode: charges one `prices.request` unit from the client's channel per request. */
  session(request: Request): Promise<MppResult>;
  /**
   * Session, SSE: streams `tokens(signal)` as `event: message`, charging `prices.stream.amount` from the
   * channel before each token is sent. When the vouchers do not cover the next token, mppx sends
   * `event: payment-need-voucher` and waits for the client's voucher; the stream ends when the client
   * goes away (`signal` aborts) or the iterable ends (then a final `payment-receipt` event).
   */
  stream(request: Request, tokens: (signal: AbortSignal) => AsyncIterable<string>): Promise<MppStreamResult>;
}

/** Extra challenge fields of a charge. */
export interface ChargeOptions {
  description?: string;
  /** Merchant reference echoed in the receipt (e.g. an order id). */
  externalId?: string;
  /**
   * Route scope bound into the challenge (HMAC-protected `opaque`), so a credential issued for one
   * route is refused by another at the same price. Default: `METHOD /path` of the request.
   */
  scope?: string;
}

const routeScope = (request: Request): string => `${request.method} ${new URL(request.url).pathname}`;

type RawResult =
  | { status: 402; challenge: Response }
  | { status: 200; withReceipt: (response?: never) => unknown };

const toChallenge = (challenge: Response): MppChallenge => ({
  status: 402,
  challenge,
  wwwAuthenticate: challenge.headers.get("www-authenticate") ?? "",
});

function toMppResult(raw: RawResult): MppResult {
  if (raw.status === 402) return toChallenge(raw.challenge);
  const withReceipt = raw.withReceipt as unknown as (response: Response) => Response;
  return { status: 200, withReceipt: (response) => withReceipt(response) };
}

/**
 * Creates the MPP rails: `tempo.charge` for one-shot routes, `tempo.session` request mode for
 * per-request metering and `tempo.session` SSE for per-token streaming, all on one shared store.
 */
export function createMppRails(config: MppRailsConfig): MppRails {
  const servers = buildInstances(config);
  const prices: MppPrices = { ...DEFAULT_MPP_PRICES, ...config.prices };

  const charge = async (
    request: Request,
    amount: string,
    options: ChargeOptions = {},
  ): Promise<MppResult> => {
    const handler = servers.charge.charge({ amount, scope: routeScope(request), ...options });
    return toMppResult((await handler(request)) as RawResult);
  };

  const operator = privateKeyToAccount(config.operatorPrivateKey);
  const channels = createSessionChannels({
    store: config.store as Store.AtomicStore,
    client: tempoClient(config.rpcUrl, config.chainId, operator),
    account: operator,
    payee: config.recipient,
  });

  return {
    servers,
    prices,
    channels,
    hasCredential: (request) => /^Payment\s/i.test(request.headers.get("authorization") ?? ""),
    async chargeChallenge(request, amount, options) {
      const headers = new Headers(request.headers);
      for (const name of ["authorization", "content-length", "content-type"]) headers.delete(name);
      const unpaid = new Request(request.url, { method: request.method, headers });
      const result = await charge(unpaid, amount, options);
      if (result.status !== 402) throw new Error("mppx accepted a request without credential");
      return result.wwwAuthenticate;
    },
    charge,
    async session(request) {
      const raw = (await servers.session.session(prices.request)(request)) as RawResult;
      return toMppResult(
        raw.status === 402 ? { ...raw, challenge: await closedChannelAsPaymentRequired(raw.challenge) } : raw,
      );
    },
    async stream(request, tokens) {
      // The stream's own lifetime: ends with the client, or when no voucher came in time.
      const lifetime = new AbortController();
      request.signal.addEventListener("abort", () => lifetime.abort(request.signal.reason), { once: true });
      const metered = new Request(request, { signal: lifetime.signal });
      const raw = (await servers.stream.session(prices.stream)(metered)) as RawResult;
      if (raw.status === 402) return toChallenge(await closedChannelAsPaymentRequired(raw.challenge));
      const voucherWaitMs = config.voucherWaitMs ?? 30_000;
      const generate = async function* (controller: StreamController): AsyncGenerator<string> {
        for await (const token of tokens(lifetime.signal)) {
          // Reserve this token's price before it is sent; end the stream if no voucher pays for it in time.
          if (!(await chargedWithin(controller, voucherWaitMs))) {
            lifetime.abort(new Error("no voucher for the next token in time"));
            return;
          }
          yield token;
        }
      };
      const withReceipt = raw.withReceipt as unknown as (generate: unknown) => Response;
      return { status: 200, response: withReceipt(generate) };
    },
  };
}

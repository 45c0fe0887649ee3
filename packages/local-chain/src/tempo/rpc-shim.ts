/**
 * Loopback JSON-RPC shim in front of anvil that supplies the transaction context a Tempo node gives
 * the native TIP-1034 reserve (see `contracts/TIP20ChannelReserve.sol`). LOCAL CHAINS ONLY: against
 * a real Tempo RPC, use its URL directly.
 *
 * Every JSON-RPC call is forwarded untouched, except calls whose transaction targets the reserve's
 * `open` / `topUp`:
 * - `eth_sendRawTransaction(Sync)`: under a process-wide mutex, write `_openContext[sender]` (open
 *   only) and `allowance[sender][reserve] = max` with `anvil_setStorageAt`, forward, wait until
 *   mined, restore both slots.
 * - `eth_call` / `eth_estimateGas`: the same two slots as a state override (nothing is written).
 * - `eth_fillTransaction`: add the reserve calls' real gas (anvil's Tempo fill does not simulate).
 *
 * @module
 */
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { CHANNEL_RESERVE_ADDRESS } from "@app/payments";
import { type Address, isAddressEqual, maxUint256, numberToHex, pad } from "viem";
import {
  type CallLike,
  openContextSlot,
  type ParsedTransaction,
  parseRawTransaction,
  type ReservePull,
  reservePulls,
  simulationContextHash,
  tip20AllowanceSlot,
} from "./tx-context.ts";

type Hex32 = `0x${string}`;
type RpcId = number | string | null;
interface RpcRequest {
  jsonrpc: "2.0";
  id: RpcId;
  method: string;
  params?: unknown[];
}
interface RpcResponse {
  jsonrpc: "2.0";
  id: RpcId;
  result?: unknown;
  error?: { code: number; message: string; data?: unknown };
}
interface TxRequest extends CallLike {
  from?: Address;
  gas?: string;
  calls?: CallLike[];
}
type StateOverride = Record<string, { stateDiff?: Record<string, string> }>;

const LOOPBACK = /^(127\.\d{1,3}\.\d{1,3}\.\d{1,3}|::1)$/;
const MAX = numberToHex(maxUint256, { size: 32 });
const ZERO = pad("0x0", { size: 32 });
const MINE_TIMEOUT_MS = 15_000;

/** Options for {@link startTempoShim}. */
export interface TempoShimOptions {
  /** anvil's JSON-RPC URL (loopback). */
  anvilRpcUrl: string;
  /** Loopback address to bind (default `127.0.0.1`). */
  host?: string;
  /** TCP port; `0`/undefined picks a free one. */
  port?: number;
  /** Reserve address (default: the canonical {@link CHANNEL_RESERVE_ADDRESS}). */
  reserve?: Address;
  /** Receives one line per seeded transaction (debugging). */
  log?: (line: string) => void;
}

/** Counters of what the shim did, for diagnostics and tests. */
export interface TempoShimStats {
  forwarded: number;
  /** Raw transactions sent with a seeded open context / implicit approval. */
  seededTransactions: number;
  /** Simulations and fills answered with the reserve state override. */
  simulationsOverridden: number;
}

/** A running shim. */
export interface TempoShim {
  /** The URL to give the mppx server and client: `http://<host>:<port>`. */
  readonly rpcUrl: string;
  readonly stats: Readonly<TempoShimStats>;
  /** Stops listening and closes open connections. Idempotent. */
  stop(): Promise<void>;
}

/** Serialises async work (one seeded transaction at a time). */
class Mutex {
  #tail: Promise<unknown> = Promise.resolve();
  run<T>(work: () => Promise<T>): Promise<T> {
    const result = this.#tail.then(work);
    this.#tail = result.catch(() => undefined);
    return result;
  }
}

/** The transport-independent core: answers one JSON-RPC request. */
class ReserveShim {
  readonly stats: TempoShimStats = { forwarded: 0, seededTransactions: 0, simulationsOverridden: 0 };
  readonly #upstream: string;
  readonly #reserve: Address;
  readonly #log: (line: string) => void;
  readonly #mutex = new Mutex();
  #nextId = 1;

  constructor(upstream: string, reserve: Address, log: (line: string) => void) {
    this.#upstream = upstream;
    this.#reserve = reserve;
    this.#log = log;
  }

  async handle(req: RpcRequest): Promise<RpcResponse> {
    try {
      switch (req.method) {
        case "eth_sendRawTransaction":
        case "eth_sendRawTransactionSync":
          return await this.#sendRaw(req);
        case "eth_call":
        case "eth_estimateGas":
          return await this.#simulate(req);
        case "eth_fillTransaction":
          return await this.#fill(req);
        default:
          return await this.#forward(req);
      }
    } catch (error) {
      return { jsonrpc: "2.0", id: req.id, error: { code: -32603, message: (error as Error).message } };
    }
  }

  async #forward(req: RpcRequest): Promise<RpcResponse> {
    this.stats.forwarded++;
    return this.#post(req);
  }

  async #post(body: unknown): Promise<RpcResponse> {
    const res = await fetch(this.#upstream, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify(body),
    });
    return (await res.json()) as RpcResponse;
  }

  async #call<T>(method: string, params: unknown[]): Promise<T> {
    const res = await this.#post({ jsonrpc: "2.0", id: `shim-${this.#nextId++}`, method, params });
    if (res.error) throw new Error(`${method}: ${res.error.message}`);
    return res.result as T;
  }

  #pullsOf(tx: TxRequest): ReservePull[] {
    if (!tx.from) return [];
    const calls = tx.calls?.length ? tx.calls : [tx];
    return reservePulls(calls, this.#reserve);
  }

  async #sendRaw(req: RpcRequest): Promise<RpcResponse> {
    let parsed: ParsedTransaction | undefined;
    try {
      parsed = await parseRawTransaction((req.params?.[0] ?? "0x") as Hex32);
    } catch {
      parsed = undefined; // let anvil report its own error
    }
    const pulls = parsed ? reservePulls(parsed.calls, this.#reserve) : [];
    if (!parsed || pulls.length === 0) return this.#forward(req);
    const { sender, contextHash } = parsed;
    return this.#withSeededContext(sender, pulls, contextHash, async () => {
      this.stats.seededTransactions++;
      this.#log(`${pulls.map((p) => `${p.action}(${p.amount})`).join("+")} from ${sender}`);
      const res = await this.#post(req);
      if (res.error) return res;
      if (req.method === "eth_sendRawTransaction") await this.#waitMined(res.result as Hex32);
      return res;
    });
  }

  /**
   * Runs `send` with the context written into chain state: `_openContext[sender]` (when an `open` is
   * present) and `allowance[sender][reserve] = max` for each pulled token; restores both afterwards.
   */
  #withSeededContext<T>(
    sender: Address,
    pulls: ReservePull[],
    contextHash: Hex32,
    send: () => Promise<T>,
  ): Promise<T> {
    return this.#mutex.run(async () => {
      const opens = pulls.some((p) => p.action === "open");
      const contextSlot = openContextSlot(sender);
      const allowances = [...new Set(pulls.map((p) => p.token.toLowerCase() as Address))].map((token) => ({
        token,
        slot: tip20AllowanceSlot(sender, this.#reserve),
      }));
      const previous = await Promise.all(
        allowances.map(({ token, slot }) => this.#call<Hex32>("eth_getStorageAt", [token, slot, "latest"])),
      );
      try {
        if (opens) await this.#call("anvil_setStorageAt", [this.#reserve, contextSlot, contextHash]);
        for (const { token, slot } of allowances) await this.#call("anvil_setStorageAt", [token, slot, MAX]);
        return await send();
      } finally {
        if (opens) await this.#call("anvil_setStorageAt", [this.#reserve, contextSlot, ZERO]);
        for (const [i, { token, slot }] of allowances.entries()) {
          await this.#call("anvil_setStorageAt", [token, slot, previous[i]]);
        }
      }
    });
  }

  async #simulate(req: RpcRequest): Promise<RpcResponse> {
    const params = [...(req.params ?? [])];
    const tx = (params[0] ?? {}) as TxRequest;
    const pulls = this.#pullsOf(tx);
    if (pulls.length === 0) return this.#forward(req);
    this.stats.simulationsOverridden++;
    params[1] ??= "latest";
    params[2] = this.#override(tx.from as Address, pulls, (params[2] as StateOverride | undefined) ?? {});
    return this.#post({ ...req, params });
  }

  /**
   * anvil 1.7.1's `eth_fillTransaction` does not simulate Tempo (0x76) calls when choosing `gas`, which
   * is too little for a reserve `open`. Adds each reserve call's own gas, measured with `eth_estimateGas`
   * under the simulation override.
   */
  async #fill(req: RpcRequest): Promise<RpcResponse> {
    const tx = (req.params?.[0] ?? {}) as TxRequest;
    const pulls = this.#pullsOf(tx);
    const res = await this.#post(req);
    const filled = res.result as { tx?: { gas?: string } } | undefined;
    if (pulls.length === 0 || res.error || !filled?.tx?.gas || tx.gas) {
      this.stats.forwarded++;
      return res;
    }
    this.stats.simulationsOverridden++;
    const sender = tx.from as Address;
    let extra = 0n;
    for (const call of tx.calls?.length ? tx.calls : [tx]) {
      const callPulls = reservePulls([call], this.#reserve);
      if (callPulls.length === 0) continue;
      const estimate = await this.#post({
        jsonrpc: "2.0",
        id: `shim-${this.#nextId++}`,
        method: "eth_estimateGas",
        params: [
          { from: sender, to: call.to, data: call.data ?? call.input },
          "latest",
          this.#override(sender, callPulls),
        ],
      });
      if (estimate.error) return { jsonrpc: "2.0", id: req.id, error: estimate.error };
      extra += BigInt(estimate.result as string) - 21_000n;
    }
    const gas = numberToHex(BigInt(filled.tx.gas) + extra);
    return { ...res, result: { ...filled, tx: { ...filled.tx, gas } } };
  }

  /** A state override giving `sender` an open context and the implicit approval. */
  #override(sender: Address, pulls: ReservePull[], base: StateOverride = {}): StateOverride {
    const override = structuredClone(base);
    const set = (address: string, slot: string, value: string): void => {
      const key =
        Object.keys(override).find((k) => isAddressEqual(k as Address, address as Address)) ?? address;
      const entry = override[key] ?? {};
      entry.stateDiff = { ...entry.stateDiff, [slot]: value };
      override[key] = entry;
    };
    if (pulls.some((p) => p.action === "open")) {
      set(this.#reserve, openContextSlot(sender), simulationContextHash(sender));
    }
    for (const token of new Set(pulls.map((p) => p.token.toLowerCase()))) {
      set(token, tip20AllowanceSlot(sender, this.#reserve), MAX);
    }
    return override;
  }

  async #waitMined(hash: Hex32): Promise<void> {
    const deadline = Date.now() + MINE_TIMEOUT_MS;
    while (Date.now() < deadline) {
      if (await this.#call<unknown>("eth_getTransactionReceipt", [hash])) return;
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    throw new Error(`transaction ${hash} was not mined within ${MINE_TIMEOUT_MS} ms`);
  }
}

async function readBody(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString("utf8");
}

/**
 * Starts the reserve RPC shim as an HTTP JSON-RPC server on loopback. Both the mppx server and the
 * mppx client must use the returned `rpcUrl` (never anvil directly) for channel `open`/`topUp`.
 * LOCAL CHAINS ONLY.
 */
export async function startTempoShim(options: TempoShimOptions): Promise<TempoShim> {
  const host = options.host ?? "127.0.0.1";
  if (!LOOPBACK.test(host)) throw new Error(`startTempoShim: refusing to bind non-loopback host ${host}`);
  const shim = new ReserveShim(
    options.anvilRpcUrl,
    options.reserve ?? CHANNEL_RESERVE_ADDRESS,
    options.log ?? (() => {}),
  );
  const server = createServer(async (req: IncomingMessage, res: ServerResponse) => {
    let body: RpcRequest | RpcRequest[];
    try {
      body = JSON.parse(await readBody(req)) as RpcRequest | RpcRequest[];
    } catch {
      res.writeHead(400, { "content-type": "application/json" });
      res.end(JSON.stringify({ jsonrpc: "2.0", id: null, error: { code: -32700, message: "parse error" } }));
      return;
    }
    const out = Array.isArray(body)
      ? await Promise.all(body.map((r) => shim.handle(r)))
      : await shim.handle(body);
    res.writeHead(200, { "content-type": "application/json" });
    res.end(JSON.stringify(out));
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(options.port ?? 0, host, () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  let stopped: Promise<void> | undefined;
  return {
    rpcUrl: `http://${host.includes(":") ? `[${host}]` : host}:${port}`,
    stats: shim.stats,
    stop() {
      stopped ??= new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      });
      return stopped;
    },
  };
}

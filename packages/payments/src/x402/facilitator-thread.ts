/**
 * The local facilitator on its own thread: on the service's event loop its JavaScript (hashing,
 * encoding, JSON-RPC) competes with every other request; on a worker thread it runs on another
 * core, and the service only passes messages. Measure before choosing it: since the EIP-3009 fast
 * path (`exact-eip3009.ts`) a verify and a settle cost the facilitator about 2 ms of CPU together,
 * and the two round trips to the thread add about 0.6 ms of CPU and of latency to a paid call.
 *
 * @module
 */
import { Worker } from "node:worker_threads";
import type { FacilitatorClient } from "@x402/core/server";
import type { Network, PaymentPayload, PaymentRequirements } from "@x402/core/types";
import { privateKeyToAccount } from "viem/accounts";
import type { LocalFacilitatorOptions } from "./local-facilitator.ts";

/** A facilitator client whose work runs on a worker thread; `stop` ends the thread. */
export type FacilitatorThread = FacilitatorClient & {
  readonly network: Network;
  readonly signerAddress: `0x${string}`;
  stop(): Promise<void>;
};

type Pending = { resolve: (value: never) => void; reject: (error: Error) => void };

/** Starts the local facilitator (`createLocalFacilitator`) on a worker thread. */
export function startFacilitatorThread(options: LocalFacilitatorOptions): FacilitatorThread {
  const worker = new Worker(new URL("./facilitator-thread-main.ts", import.meta.url), {
    workerData: options,
  });
  const pending = new Map<number, Pending>();
  let nextId = 0;
  let failure: Error | undefined;
  const failAll = (error: Error) => {
    failure = error;
    for (const call of pending.values()) call.reject(error);
    pending.clear();
  };
  worker.on("message", (reply: { id: number; result?: unknown; error?: string }) => {
    const call = pending.get(reply.id);
    if (!call) return;
    pending.delete(reply.id);
    if (reply.error !== undefined) call.reject(new Error(reply.error));
    else call.resolve(reply.result as never);
  });
  worker.on("error", (error) => failAll(error));
  worker.on("exit", (code) => failAll(new Error(`the facilitator thread exited (${code})`)));
  const call = <T>(op: "verify" | "settle" | "getSupported", ...args: unknown[]): Promise<T> =>
    new Promise<T>((resolve, reject) => {
      if (failure) return reject(failure);
      const id = nextId++;
      pending.set(id, { resolve: resolve as (value: never) => void, reject });
      worker.postMessage({ id, op, args });
    });
  return {
    network: `eip155:${options.chainId}`,
    signerAddress: privateKeyToAccount(options.signerPrivateKey).address,
    verify: (payload: PaymentPayload, requirements: PaymentRequirements) =>
      call("verify", payload, requirements),
    settle: (payload: PaymentPayload, requirements: PaymentRequirements) =>
      call("settle", payload, requirements),
    getSupported: () => call("getSupported"),
    async stop() {
      failAll(new Error("the facilitator thread was stopped"));
      worker.removeAllListeners("exit");
      await worker.terminate();
    },
  };
}

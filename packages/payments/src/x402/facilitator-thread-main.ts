/**
 * The worker side of {@link startFacilitatorThread}: an in-process facilitator answering the
 * service's calls over the thread's message port.
 *
 * @module
 */
import { parentPort, workerData } from "node:worker_threads";
import { createLocalFacilitator, type LocalFacilitatorOptions } from "./local-facilitator.ts";

type Call = { id: number; op: "verify" | "settle" | "getSupported"; args: unknown[] };

const facilitator = createLocalFacilitator(workerData as LocalFacilitatorOptions);
const port = parentPort;
if (!port) throw new Error("facilitator-thread-main runs as a worker thread only");

port.on("message", async (call: Call) => {
  try {
    const result =
      call.op === "getSupported"
        ? await facilitator.getSupported()
        : await facilitator[call.op](...(call.args as [never, never]));
    port.postMessage({ id: call.id, result });
  } catch (error) {
    port.postMessage({ id: call.id, error: error instanceof Error ? error.message : String(error) });
  }
});

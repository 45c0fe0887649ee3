import { newId } from "@app/core";

/** What an injected fault does to the request it hits. */
export type FaultKind = "error" | "timeout" | "reset";

export type FaultSpec = {
  /** The operation it hits, e.g. `youtube.videos.insert` (see `GET /_sandbox/operations`). */
  operation: string;
  kind: FaultKind;
  /** How many of the next calls it hits. */
  count: number;
  /** `error`: the HTTP status answered (e.g. 429, 500, 503). */
  status: number;
  /** `error`: the platform's own error code or reason (else one that fits the status). */
  error?: string;
  message?: string;
  /** `error`: sent as `Retry-After`. */
  retryAfterSeconds?: number;
  /** `timeout`: how long the request is held before the connection is dropped (the client usually gives up first). */
  holdMs: number;
};

export type Fault = FaultSpec & { id: string; remaining: number };

/** Faults waiting for their operation's next calls, first added first used. */
export class FaultBook {
  private faults: Fault[] = [];

  add(spec: FaultSpec): Fault {
    const fault: Fault = { ...spec, id: newId("flt"), remaining: spec.count };
    this.faults.push(fault);
    return fault;
  }

  /** The fault that hits this call of `operation`, counted down; undefined when none waits. */
  take(operation: string): Fault | undefined {
    const fault = this.faults.find((candidate) => candidate.operation === operation);
    if (!fault) return undefined;
    fault.remaining -= 1;
    if (fault.remaining <= 0) this.faults = this.faults.filter((candidate) => candidate !== fault);
    return fault;
  }

  list(): Fault[] {
    return this.faults.map((fault) => ({ ...fault }));
  }

  clear(): void {
    this.faults = [];
  }
}

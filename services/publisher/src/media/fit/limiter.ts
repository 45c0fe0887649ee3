/** Whose task it is, and when it no longer needs to run. */
export type Turn = {
  /** Tasks of one key wait in one queue; keys take turns (the default key is `""`). */
  key?: string;
  /** Past this many tasks of the key already waiting, the task is refused ({@link QueueFullError}). */
  maxWaiting?: number;
  /** Once aborted, a waiting task leaves the queue unrun and rejects with the signal's reason. */
  signal?: AbortSignal;
};

/**
 * Runs at most `max` tasks at a time; the others wait their turn. Each key (an account) has a
 * queue of its own, first come first served within it, and a freed slot goes to the keys in
 * turn, so one key's long backlog delays another key's task by one task per key at most.
 */
export type Limiter = {
  run<T>(task: () => Promise<T>, turn?: Turn): Promise<T>;
  /** Tasks running now. */
  readonly active: number;
  /** Tasks waiting for their turn, all keys together. */
  readonly waiting: number;
};

/** A task refused because its key already has as many tasks waiting as it may. */
export class QueueFullError extends Error {
  override name = "QueueFullError";
  constructor(
    readonly key: string,
    readonly maxWaiting: number,
  ) {
    super(`${maxWaiting} tasks are already waiting for ${key || "this queue"}.`);
  }
}

type Waiter = { start: () => void; cancel: () => void };

export function createLimiter(max: number): Limiter {
  let active = 0;
  let waitingCount = 0;
  /** Each key's waiting tasks; a Map keeps its keys in order, so the first is the next to go. */
  const queues = new Map<string, Waiter[]>();

  /** The key to serve next: the first in line, unless it is the key whose task just finished. */
  const nextKey = (finished: string): string | undefined => {
    let fallback: string | undefined;
    for (const key of queues.keys()) {
      if (key !== finished) return key;
      fallback = key;
    }
    return fallback;
  };

  /** A finished task hands its slot straight to the next key's first task, so no newcomer jumps in. */
  const release = (finished: string) => {
    const key = nextKey(finished);
    const queue = key === undefined ? undefined : queues.get(key);
    if (key === undefined || !queue) {
      active -= 1;
      return;
    }
    const waiter = queue.shift() as Waiter;
    queues.delete(key);
    // Back of the line for this key, behind every other key with tasks waiting.
    if (queue.length > 0) queues.set(key, queue);
    waitingCount -= 1;
    waiter.cancel();
    waiter.start();
  };

  function enqueue(key: string, turn: Turn): Promise<void> {
    const queue = queues.get(key) ?? [];
    if (turn.maxWaiting !== undefined && queue.length >= turn.maxWaiting) {
      return Promise.reject(new QueueFullError(key, turn.maxWaiting));
    }
    return new Promise<void>((resolve, reject) => {
      const onAbort = () => {
        const index = queue.indexOf(waiter);
        if (index < 0) return;
        queue.splice(index, 1);
        waitingCount -= 1;
        if (queue.length === 0 && queues.get(key) === queue) queues.delete(key);
        reject(turn.signal?.reason);
      };
      const waiter: Waiter = {
        start: resolve,
        cancel: () => turn.signal?.removeEventListener("abort", onAbort),
      };
      turn.signal?.addEventListener("abort", onAbort, { once: true });
      queue.push(waiter);
      waitingCount += 1;
      if (!queues.has(key)) queues.set(key, queue);
    });
  }

  return {
    get active() {
      return active;
    },
    get waiting() {
      return waitingCount;
    },
    async run(task, turn = {}) {
      turn.signal?.throwIfAborted();
      if (active < max) active += 1;
      else await enqueue(turn.key ?? "", turn);
      try {
        return await task();
      } finally {
        release(turn.key ?? "");
      }
    },
  };
}

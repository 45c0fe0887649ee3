/** Runs at most `max` tasks at a time; the others wait their turn, first come first served. */
export type Limiter = {
  run<T>(task: () => Promise<T>): Promise<T>;
  /** Tasks running now. */
  readonly active: number;
  /** Tasks waiting for their turn. */
  readonly waiting: number;
};

export function createLimiter(max: number): Limiter {
  let active = 0;
  const waiting: Array<() => void> = [];
  /** A finished task hands its slot straight to the next in line, so no newcomer can jump in between. */
  const release = () => {
    const next = waiting.shift();
    if (next) next();
    else active -= 1;
  };
  return {
    get active() {
      return active;
    },
    get waiting() {
      return waiting.length;
    },
    async run(task) {
      if (active < max) active += 1;
      else await new Promise<void>((resolve) => waiting.push(resolve));
      try {
        return await task();
      } finally {
        release();
      }
    },
  };
}

import { describe, expect, test } from "vitest";
import { createLimiter, QueueFullError } from "../../src/media/fit/limiter.ts";

/** A task that runs until its `finish` is called, recording when it started. */
function gate(started: string[], name: string) {
  let finish = () => {};
  const done = new Promise<void>((resolve) => {
    finish = resolve;
  });
  return {
    task: async () => {
      started.push(name);
      await done;
      return name;
    },
    finish: () => finish(),
  };
}

const settle = () => new Promise((resolve) => setImmediate(resolve));

describe("the image limiter", () => {
  test("takes turns between keys: one key's long backlog does not hold another's one task behind it", async () => {
    const limiter = createLimiter(1);
    const started: string[] = [];
    const gates = ["a1", "a2", "a3", "a4", "b1"].map((name) => gate(started, name));
    const runs = gates.map((g, index) => limiter.run(g.task, { key: index < 4 ? "a" : "b" }));
    await settle();
    expect(started).toEqual(["a1"]);
    gates[0]?.finish();
    await settle();
    expect(started).toEqual(["a1", "b1"]);
    for (const g of gates) g.finish();
    await Promise.all(runs);
    expect(started).toEqual(["a1", "b1", "a2", "a3", "a4"]);
  });

  test("refuses a task past a key's bound of waiting tasks, without touching other keys", async () => {
    const limiter = createLimiter(1);
    const started: string[] = [];
    const first = gate(started, "a1");
    const running = limiter.run(first.task, { key: "a", maxWaiting: 1 });
    const waiting = limiter.run(async () => "a2", { key: "a", maxWaiting: 1 });
    await expect(limiter.run(async () => "a3", { key: "a", maxWaiting: 1 })).rejects.toBeInstanceOf(
      QueueFullError,
    );
    const other = limiter.run(async () => "b1", { key: "b", maxWaiting: 1 });
    expect(limiter.waiting).toBe(2);
    first.finish();
    await expect(Promise.all([running, waiting, other])).resolves.toEqual(["a1", "a2", "b1"]);
  });

  test("a waiting task whose signal aborts leaves the queue unrun; an aborted signal never starts", async () => {
    const limiter = createLimiter(1);
    const started: string[] = [];
    const first = gate(started, "a1");
    const running = limiter.run(first.task, { key: "a" });
    const controller = new AbortController();
    let ran = false;
    const cancelled = limiter.run(
      async () => {
        ran = true;
      },
      { key: "a", signal: controller.signal },
    );
    expect(limiter.waiting).toBe(1);
    controller.abort(new Error("client left"));
    await expect(cancelled).rejects.toThrow("client left");
    expect(limiter.waiting).toBe(0);
    await expect(limiter.run(async () => 1, { signal: controller.signal })).rejects.toThrow("client left");
    first.finish();
    await running;
    expect(ran).toBe(false);
    expect(limiter.active).toBe(0);
  });
});

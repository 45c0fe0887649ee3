import { describe, expect, it } from "vitest";
import { ChallengeCache } from "../src/payments/challenge-cache.ts";

describe("ChallengeCache", () => {
  it("builds once per key within its lifetime, again after it, and never keeps a failed build", async () => {
    let now = 0;
    let builds = 0;
    const cache = new ChallengeCache<number>(1000, () => now);
    const build = async () => ++builds;
    expect(await cache.get("fortune", build)).toBe(1);
    expect(await cache.get("fortune", build)).toBe(1);
    expect(await cache.get("dynamic", build)).toBe(2);
    now = 1001;
    expect(await cache.get("fortune", build)).toBe(3);
    await expect(cache.get("broken", async () => Promise.reject(new Error("rail down")))).rejects.toThrow(
      "rail down",
    );
    await Promise.resolve();
    expect(await cache.get("broken", build)).toBe(4);
  });
});

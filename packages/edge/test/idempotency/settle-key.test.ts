import { captureLogs } from "@app/testkit";
import { describe, expect, it } from "vitest";
import type { IdempotencyLease } from "../../src/idempotency/idempotency-store.ts";
import { keepAnswer, releaseKey } from "../../src/idempotency/settle-key.ts";
import { storedJsonText } from "../../src/idempotency/stored-response.ts";

const lease: IdempotencyLease = { scope: "acct_1", key: "k1", token: "t1" };
const answer = storedJsonText(201, '{"id":"post_1"}');
const messages = (lines: string[]) => lines.map((line) => (JSON.parse(line) as { msg: string }).msg);

/** A store whose calls are recorded; `complete` answers as told, or fails. */
function store(complete: boolean | Error, release: true | Error = true) {
  const calls: string[] = [];
  const answerWith = async <T>(name: string, outcome: T | Error): Promise<T> => {
    calls.push(name);
    if (outcome instanceof Error) throw outcome;
    return outcome;
  };
  return {
    calls,
    complete: () => answerWith("complete", complete),
    release: () => answerWith("release", release),
  };
}

describe("settling a key after its request ran", () => {
  it("keeps the answer, and releases nothing, when the lease still holds", async () => {
    const { logger, lines } = captureLogs();
    const keys = store(true);
    await keepAnswer(keys, lease, answer, logger);
    expect(keys.calls).toEqual(["complete"]);
    expect(lines).toEqual([]);
  });

  it("releases the key when the answer cannot be stored, so a retry runs afresh, and never throws", async () => {
    const { logger, lines } = captureLogs();
    const keys = store(new Error("database gone"));
    await keepAnswer(keys, lease, answer, logger);
    expect(keys.calls).toEqual(["complete", "release"]);
    expect(messages(lines)).toEqual([expect.stringMatching(/answer .* could not be stored/)]);
  });

  it("says so when the lease ran out before the answer was stored", async () => {
    const { logger, lines } = captureLogs();
    const keys = store(false);
    await keepAnswer(keys, lease, answer, logger);
    expect(keys.calls).toEqual(["complete"]);
    expect(messages(lines)).toEqual([expect.stringMatching(/lease ran out/)]);
  });

  it("logs a release that fails, and never throws", async () => {
    const { logger, lines } = captureLogs();
    const keys = store(true, new Error("database gone"));
    await expect(releaseKey(keys, lease, logger)).resolves.toBeUndefined();
    expect(messages(lines)).toEqual([expect.stringMatching(/could not be released/)]);
  });
});

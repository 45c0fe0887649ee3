import { captureLogs, json, test } from "@app/testkit";
import { describe, expect } from "vitest";
import { bearer, gatewayHarness, openAccount } from "../support/harness.ts";

/** A cursor as the runs list encodes one (base64url JSON), naming any position. */
const runsCursor = (micros: string, id = "run_x") =>
  Buffer.from(JSON.stringify(["runs", micros, id]), "utf8").toString("base64url");

describe("history reads given instants the database cannot hold", () => {
  test("a runs cursor at the largest int8 is answered (400 or an empty page), never a 500", async ({
    db,
  }) => {
    const logs = captureLogs("error");
    const gateway = gatewayHarness(db, { logger: logs.logger });
    const caller = await openAccount(db, 1_000_000n);
    const res = await gateway.app.request(`/v1/runs?cursor=${runsCursor("9223372036854775807")}`, {
      headers: bearer(caller.key),
    });
    // A position no run can have: refused (400), or an empty page; never the database's error.
    expect(`${res.status} ${(await json(res)).error ?? "ok"}`).not.toMatch(/^5/);
    expect(logs.lines.join("\n")).not.toContain("unhandled error");
    await gateway.close();
  });

  test("a usage period in year 0 or reaching year 10000 is answered (a 400), never a 500", async ({ db }) => {
    const logs = captureLogs("error");
    const gateway = gatewayHarness(db, { logger: logs.logger });
    const caller = await openAccount(db, 1_000_000n);
    const answers: Record<string, string> = {};
    for (const query of ["from=0000-01-01&to=0000-12-31", "from=9999-12-30&to=9999-12-31"]) {
      const res = await gateway.app.request(`/v1/usage?${query}`, { headers: bearer(caller.key) });
      answers[query] = `${res.status} ${(await json(res)).error ?? "ok"}`;
    }
    // Year 0 does not exist in the database's calendar; 10000-01-01 (the end of 9999-12-31) is
    // past its text format. Refused as input (or answered), never the database's error.
    expect(Object.values(answers).filter((answer) => answer.startsWith("5"))).toEqual([]);
    expect(logs.lines.join("\n")).not.toContain("unhandled error");
    await gateway.close();
  });
});

/**
 * `@app/fortune/testing`: the fortune service on a real local chain and database, for tests here
 * and in other workspaces (the `pay` CLI's). Never imported by production code.
 *
 * @module
 */
import { test } from "@app/testkit";
import { type FortuneHarness, startFortune } from "./harness.ts";

export * from "./harness.ts";

/**
 * `test` with a `fortune` fixture: the service started once per test file on the file's database
 * (`env` adds settings), stopped after the file's last test.
 */
export const fortuneTest = test.extend<{ fortune: FortuneHarness }>({
  fortune: [
    async ({ db }, use) => {
      const harness = await startFortune(db);
      await use(harness);
      await harness.stop();
    },
    { scope: "file" },
  ],
});

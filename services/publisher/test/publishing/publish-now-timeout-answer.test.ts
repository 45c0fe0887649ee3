/**
 * Publish-now against the real publishing: its wait ends while a Bluesky target is still inside
 * `createRecord`. The answer must say "still publishing" (never `success: false`, which a client
 * would read as "post again"; the top-level `success` true, as nothing failed, never a falsy null),
 * and the target then publishes once, by the run that was going on.
 */
import { json, test } from "@app/testkit";
import { expect } from "vitest";
import { sandboxAdapters } from "../../src/demo.ts";
import type { Adapters } from "../../src/platforms/index.ts";
import { createApiKey } from "../../src/store/accounts.ts";
import { seedDemo, targetsOf, usePlatformTwins, waitFor } from "../publishing-support.ts";
import { call, publisherApp } from "../support.ts";

const twins = usePlatformTwins();

/** Bluesky adapters whose `createRecord` waits until the test opens the gate. */
function gatedCreateRecord(base: Adapters) {
  let arrived!: () => void;
  let open!: () => void;
  const reached = new Promise<void>((resolve) => {
    arrived = resolve;
  });
  const opened = new Promise<void>((resolve) => {
    open = resolve;
  });
  let calls = 0;
  const adapters: Adapters = {
    ...base,
    bluesky: {
      ...base.bluesky,
      async createRecord(...args) {
        calls += 1;
        arrived();
        await opened;
        return base.bluesky.createRecord(...args);
      },
    },
  };
  return { adapters, reached, open, calls: () => calls };
}

test("a target still running when publish-now's wait ends is answered as publishing, then publishes once", async ({
  db,
}) => {
  const demo = await seedDemo(db, twins.sandbox.url);
  const { key } = await createApiKey(db, { accountId: demo.accountId });
  const gate = gatedCreateRecord(sandboxAdapters(twins.sandbox.url));
  const publishing = twins.publishing(db, { adapters: gate.adapters });
  const { app } = publisherApp(db, { publishing, publishTimeoutMs: 300, now: new Date().toISOString() });
  try {
    const answering = call(app, "POST", "/api/v1/publish", key, {
      text: "Slow platform",
      connectionIds: [demo.connections.bluesky],
    });
    await gate.reached;
    const res = await answering;
    expect(res.status).toBe(200);
    const body = await json(res);
    expect(body).toMatchObject({
      success: true,
      allPublished: false,
      status: "publishing",
      platforms: [{ connectionId: demo.connections.bluesky, success: null, status: "publishing" }],
    });
    expect(body.message).toContain(`GET /api/v1/posts/${body.postId}`);
    expect(JSON.stringify(body)).not.toContain('"success":false');

    gate.open();
    const [published] = await waitFor(async () => {
      const targets = await targetsOf(db, body.postId);
      return targets[0]?.status === "published" ? targets : undefined;
    }, "the target to publish");
    expect(published).toMatchObject({ status: "published", error: null });
    expect(gate.calls()).toBe(1);
  } finally {
    gate.open();
  }
});

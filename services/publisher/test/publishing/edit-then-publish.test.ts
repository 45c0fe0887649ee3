import { json, test } from "@app/testkit";
import { describe, expect } from "vitest";
import {
  postStatus,
  sandboxGet,
  seedDemo,
  targetsOf,
  usePlatformTwins,
  waitFor,
} from "../publishing-support.ts";
import { call, publisherApp } from "../support.ts";

const twins = usePlatformTwins();

type Records = { records: { rkey: string; value: Record<string, unknown> }[] };

describe("an edit that commits before a worker's claim", () => {
  test("the worker publishes the edited post: its new caption, at its new time", async ({ db }) => {
    const demo = await seedDemo(db, twins.sandbox.url);
    const publishing = twins.publishing(db);
    // The API's clock is months behind the workers' (the system clock): an edit to one hour after
    // the API's now makes the post due for the workers at once.
    const { app } = publisherApp(db, { publishing, storage: twins.storage, now: "2026-06-15T06:00:00Z" });
    const made = await call(app, "POST", "/api/v1/schedule", demo.apiKey, {
      text: "The original caption",
      connectionIds: [demo.connections.bluesky],
      scheduledFor: "2099-01-01T00:00:00Z",
    });
    const { postId } = await json(made);
    const edited = await call(app, "PATCH", `/api/v1/posts/${postId}`, demo.apiKey, {
      text: "The edited caption",
      scheduledFor: "2026-06-15T07:00:00Z",
    });
    expect(edited.status).toBe(200);
    const workers = publishing.startWorkers({
      workerId: "edit-worker",
      pollIntervalMs: 50,
      sweepIntervalMs: false,
    });
    try {
      await waitFor(async () => (await postStatus(db, postId)) === "published", "the edited post to publish");
    } finally {
      await workers.stop();
    }
    const [target] = await targetsOf(db, postId);
    const rkey = target?.platformPostId?.split("/").at(-1);
    const { records } = await sandboxGet<Records>(twins.sandbox.url, "/_sandbox/bluesky/records");
    expect(records.find((record) => record.rkey === rkey)?.value).toMatchObject({
      text: "The edited caption",
    });
    expect(records.some((record) => record.value.text === "The original caption")).toBe(false);
  });
});

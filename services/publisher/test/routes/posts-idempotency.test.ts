import type { Database } from "@app/db";
import { json, test } from "@app/testkit";
import { describe, expect } from "vitest";
import type { TargetOutcome } from "../../src/contracts/post.ts";
import { createFakePublishing } from "../../src/publishing.fake.ts";
import { call, publisherApp, seedAccount, seedConnection } from "../support.ts";

const LATER = "2026-07-01T09:30:00Z";

async function countRows(db: Database, table: "posts" | "post_targets" | "media", accountId: string) {
  const where =
    table === "post_targets"
      ? "post_id IN (SELECT id FROM publisher.posts WHERE account_id = $1)"
      : "account_id = $1";
  const [row] = await db.query<{ n: number }>(
    `SELECT count(*)::int AS n FROM publisher.${table} WHERE ${where}`,
    [accountId],
  );
  return row?.n ?? 0;
}

/** An answer as the client receives it: status, the headers that matter, and the body's bytes. */
async function received(res: Response) {
  return {
    status: res.status,
    contentType: res.headers.get("content-type"),
    replayed: res.headers.get("idempotent-replayed"),
    body: await res.text(),
  };
}

/** A promise opened from outside, and one that resolves once it is waited on. */
function gate() {
  let open!: () => void;
  let reached!: () => void;
  const opened = new Promise<void>((resolve) => {
    open = resolve;
  });
  const waiting = new Promise<void>((resolve) => {
    reached = resolve;
  });
  const wait = () => {
    reached();
    return opened;
  };
  return { open, waiting, wait };
}

describe("Idempotency-Key on the creates: success", () => {
  test("publish: the same key and body answers the first answer byte for byte, marked replayed, and publishes nothing new", async ({
    db,
  }) => {
    const { accountId, key } = await seedAccount(db);
    const bluesky = await seedConnection(db, accountId, "bluesky");
    const { app, publishing } = publisherApp(db);
    const body = { text: "Once only", connectionIds: [bluesky] };
    const headers = { "idempotency-key": "publish-1" };
    const first = await received(await call(app, "POST", "/api/v1/publish", key, body, headers));
    const again = await received(await call(app, "POST", "/api/v1/publish", key, body, headers));
    expect(first).toMatchObject({ status: 200, contentType: "application/json", replayed: null });
    expect(JSON.parse(first.body)).toMatchObject({ success: true, allPublished: true });
    expect(again).toEqual({ ...first, replayed: "true" });
    expect(await countRows(db, "posts", accountId)).toBe(1);
    expect(publishing.calls.filter((call) => call.method === "publishNow")).toHaveLength(1);
  });

  test("the fingerprint is the parsed body: other key order and spacing replay, an unknown field dropped by the schema too", async ({
    db,
  }) => {
    const { accountId, key } = await seedAccount(db);
    const bluesky = await seedConnection(db, accountId, "bluesky");
    const { app } = publisherApp(db);
    const headers = { "idempotency-key": "schedule-spacing" };
    const first = await call(
      app,
      "POST",
      "/api/v1/schedule",
      key,
      JSON.stringify({ text: "Later", connectionIds: [bluesky], scheduledFor: LATER }),
      headers,
    );
    const reordered = await call(
      app,
      "POST",
      "/api/v1/schedule",
      key,
      `{ "scheduledFor" : "${LATER}",\n  "connectionIds": ["${bluesky}"], "text": "Later", "ignored": 1 }`,
      headers,
    );
    expect(reordered.headers.get("idempotent-replayed")).toBe("true");
    expect(await reordered.text()).toBe(await first.text());
    expect(await countRows(db, "posts", accountId)).toBe(1);
  });

  test("schedule and queue replay their answer; without a key every request makes a post", async ({ db }) => {
    const { accountId, key } = await seedAccount(db);
    const bluesky = await seedConnection(db, accountId, "bluesky");
    const { app } = publisherApp(db);
    const scheduled = { text: "Later", connectionIds: [bluesky], scheduledFor: LATER };
    const queued = { text: "Queued", connectionIds: [bluesky] };
    for (const [path, body] of [
      ["/api/v1/schedule", scheduled],
      ["/api/v1/queue", queued],
    ] as const) {
      const headers = { "idempotency-key": `key-${path}` };
      const first = await received(await call(app, "POST", path, key, body, headers));
      const again = await received(await call(app, "POST", path, key, body, headers));
      expect(first.status).toBe(200);
      expect(again).toEqual({ ...first, replayed: "true" });
    }
    expect(await countRows(db, "posts", accountId)).toBe(2);
    await call(app, "POST", "/api/v1/schedule", key, scheduled);
    await call(app, "POST", "/api/v1/schedule", key, scheduled);
    expect(await countRows(db, "posts", accountId)).toBe(4);
  });

  test("v2 upload: a retry gets the same upload URL and path, and one media row", async ({ db }) => {
    const { accountId, key } = await seedAccount(db);
    const { app } = publisherApp(db);
    const body = { contentLength: 1234, contentType: "video/mp4" };
    const headers = { "idempotency-key": "upload-1" };
    const first = await received(await call(app, "POST", "/api/v2/upload", key, body, headers));
    const again = await received(await call(app, "POST", "/api/v2/upload", key, body, headers));
    expect(first.status).toBe(200);
    expect(JSON.parse(first.body)).toMatchObject({ uploadUrl: expect.stringContaining("X-Amz-Signature") });
    expect(again).toEqual({ ...first, replayed: "true" });
    expect(await countRows(db, "media", accountId)).toBe(1);
  });

  test("20 concurrent copies of a publish make one post: each answer is the post or 409 in progress", async ({
    db,
  }) => {
    const { accountId, key } = await seedAccount(db);
    const bluesky = await seedConnection(db, accountId, "bluesky");
    const { app } = publisherApp(db);
    const body = { text: "Twenty copies", connectionIds: [bluesky] };
    const answers = await Promise.all(
      Array.from({ length: 20 }, () =>
        call(app, "POST", "/api/v1/publish", key, body, { "idempotency-key": "burst" }).then(received),
      ),
    );
    expect(await countRows(db, "posts", accountId)).toBe(1);
    expect(await countRows(db, "post_targets", accountId)).toBe(1);
    const made = answers.filter((answer) => answer.status === 200);
    expect(made.length).toBeGreaterThanOrEqual(1);
    expect(made.filter((answer) => answer.replayed === null)).toHaveLength(1);
    expect(new Set(made.map((answer) => answer.body)).size).toBe(1);
    for (const answer of answers.filter((a) => a.status !== 200)) {
      expect(answer.status).toBe(409);
      expect(JSON.parse(answer.body)).toMatchObject({ error: "REQUEST_IN_PROGRESS" });
    }
  });

  test("keys are the account's: another account's request with the same key is its own", async ({ db }) => {
    const first = await seedAccount(db);
    const second = await seedAccount(db);
    const one = await seedConnection(db, first.accountId, "bluesky");
    const two = await seedConnection(db, second.accountId, "bluesky");
    const { app } = publisherApp(db);
    const headers = { "idempotency-key": "shared-key" };
    const a = await call(
      app,
      "POST",
      "/api/v1/schedule",
      first.key,
      { text: "A", connectionIds: [one], scheduledFor: LATER },
      headers,
    );
    const b = await call(
      app,
      "POST",
      "/api/v1/schedule",
      second.key,
      { text: "A", connectionIds: [two], scheduledFor: LATER },
      headers,
    );
    expect([a.status, b.status]).toEqual([200, 200]);
    expect(b.headers.get("idempotent-replayed")).toBeNull();
    expect((await json(a)).postId).not.toBe((await json(b)).postId);
  });
});

describe("Idempotency-Key on the creates: errors", () => {
  test("the same key with another body is 422 IDEMPOTENCY_KEY_REUSED, and nothing is made", async ({
    db,
  }) => {
    const { accountId, key } = await seedAccount(db);
    const bluesky = await seedConnection(db, accountId, "bluesky");
    const { app } = publisherApp(db);
    const headers = { "idempotency-key": "reused" };
    await call(
      app,
      "POST",
      "/api/v1/schedule",
      key,
      { text: "One", connectionIds: [bluesky], scheduledFor: LATER },
      headers,
    );
    const other = await call(
      app,
      "POST",
      "/api/v1/schedule",
      key,
      { text: "Two", connectionIds: [bluesky], scheduledFor: LATER },
      headers,
    );
    expect(other.status).toBe(422);
    expect(await json(other)).toMatchObject({ error: "IDEMPOTENCY_KEY_REUSED" });
    expect(await countRows(db, "posts", accountId)).toBe(1);
  });

  test("the same key and body on another create is 422 too: the operation is part of the request", async ({
    db,
  }) => {
    const { accountId, key } = await seedAccount(db);
    const bluesky = await seedConnection(db, accountId, "bluesky");
    const { app } = publisherApp(db);
    const body = { text: "Same body", connectionIds: [bluesky] };
    const headers = { "idempotency-key": "two-routes" };
    expect((await call(app, "POST", "/api/v1/queue", key, body, headers)).status).toBe(200);
    const publish = await call(app, "POST", "/api/v1/publish", key, body, headers);
    expect(publish.status).toBe(422);
    expect(await countRows(db, "posts", accountId)).toBe(1);
  });

  test("while the first request runs, a retry is 409 REQUEST_IN_PROGRESS with Retry-After; afterwards it replays", async ({
    db,
  }) => {
    const { accountId, key } = await seedAccount(db);
    const bluesky = await seedConnection(db, accountId, "bluesky");
    const fake = createFakePublishing(db);
    const held = gate();
    const { app } = publisherApp(db, {
      publishing: {
        ...fake,
        publishNow: async (postId: string, timeoutMs: number): Promise<TargetOutcome[]> => {
          await held.wait();
          return fake.publishNow(postId, timeoutMs);
        },
      },
    });
    const body = { text: "Slow platform", connectionIds: [bluesky] };
    const headers = { "idempotency-key": "slow" };
    const first = call(app, "POST", "/api/v1/publish", key, body, headers).then(received);
    await held.waiting;
    const during = await call(app, "POST", "/api/v1/publish", key, body, headers);
    expect(during.status).toBe(409);
    expect(during.headers.get("retry-after")).toBe("1");
    expect(await json(during)).toMatchObject({ error: "REQUEST_IN_PROGRESS" });
    held.open();
    const answered = await first;
    expect(answered.status).toBe(200);
    const after = await received(await call(app, "POST", "/api/v1/publish", key, body, headers));
    expect(after).toEqual({ ...answered, replayed: "true" });
    expect(await countRows(db, "posts", accountId)).toBe(1);
  });

  test("a refusal before anything was stored releases the key: the retry runs afresh", async ({ db }) => {
    const { accountId, key } = await seedAccount(db);
    const bluesky = await seedConnection(db, accountId, "bluesky", "needs_reconnect");
    const { app } = publisherApp(db);
    const body = { text: "After reconnecting", connectionIds: [bluesky], scheduledFor: LATER };
    const headers = { "idempotency-key": "refused-first" };
    const refused = await call(app, "POST", "/api/v1/schedule", key, body, headers);
    expect(refused.status).toBe(400);
    expect(await json(refused)).toMatchObject({ error: "INVALID_CONNECTION" });
    await db.query("UPDATE publisher.connections SET status = 'active' WHERE id = $1", [bluesky]);
    const retried = await call(app, "POST", "/api/v1/schedule", key, body, headers);
    expect(retried.status).toBe(200);
    expect(retried.headers.get("idempotent-replayed")).toBeNull();
    expect(await countRows(db, "posts", accountId)).toBe(1);
  });

  test("a failure after the post was stored keeps the key: a 500 naming the post, replayed, and no second post", async ({
    db,
  }) => {
    const { accountId, key } = await seedAccount(db);
    const bluesky = await seedConnection(db, accountId, "bluesky");
    // Publish-now fails, and so does reading the targets' outcomes afterwards.
    const failingReads: Database = {
      ...db,
      query: (sql, params, options) =>
        sql.includes("array_position(p.connection_ids")
          ? Promise.reject(new Error("the database went away"))
          : db.query(sql, params, options),
    };
    const { app } = publisherApp(failingReads, {
      publishing: {
        ...createFakePublishing(db),
        publishNow: () => Promise.reject(new Error("publishing is down")),
      },
    });
    const body = { text: "Stored, then lost", connectionIds: [bluesky] };
    const headers = { "idempotency-key": "after-store" };
    const first = await received(await call(app, "POST", "/api/v1/publish", key, body, headers));
    expect(first.status).toBe(500);
    const [post] = await db.query<{ id: string }>("SELECT id FROM publisher.posts WHERE account_id = $1", [
      accountId,
    ]);
    expect(JSON.parse(first.body)).toMatchObject({ error: "INTERNAL", postId: post?.id });
    const again = await received(await call(app, "POST", "/api/v1/publish", key, body, headers));
    expect(again).toEqual({ ...first, replayed: "true" });
    expect(await countRows(db, "posts", accountId)).toBe(1);
  });

  test("a malformed key is 400 VALIDATION_FAILED naming the header, before anything is made", async ({
    db,
  }) => {
    const { accountId, key } = await seedAccount(db);
    const bluesky = await seedConnection(db, accountId, "bluesky");
    const { app } = publisherApp(db);
    const res = await call(
      app,
      "POST",
      "/api/v1/schedule",
      key,
      { text: "x", connectionIds: [bluesky], scheduledFor: LATER },
      { "idempotency-key": "x".repeat(256) },
    );
    expect(res.status).toBe(400);
    expect(await json(res)).toMatchObject({
      error: "VALIDATION_FAILED",
      issues: [{ path: "Idempotency-Key" }],
    });
    expect(await countRows(db, "posts", accountId)).toBe(0);
  });
});

describe("Idempotency-Key on the creates: security", () => {
  test("without a key the request is 401 and a key without the scope 403, whatever the Idempotency-Key", async ({
    db,
  }) => {
    const { key } = await seedAccount(db, { scopes: ["posts:read"] });
    const { app } = publisherApp(db);
    const headers = { "idempotency-key": "k" };
    expect((await call(app, "POST", "/api/v1/publish", undefined, {}, headers)).status).toBe(401);
    expect((await call(app, "POST", "/api/v2/upload", key, {}, headers)).status).toBe(403);
  });
});

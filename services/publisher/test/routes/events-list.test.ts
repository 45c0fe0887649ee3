import type { ServiceApp } from "@app/core";
import { json, test } from "@app/testkit";
import { describe, expect } from "vitest";
import { encodeEventCursor } from "../../src/domain/event-cursor.ts";
import { call, publisherApp, seedAccount, seedConnection } from "../support.ts";

type EventBody = {
  id: string;
  type: string;
  occurredAt: string;
  postId: string | null;
  targetId: string | null;
  data: Record<string, unknown>;
  cursor: string;
};
type Page = { events: EventBody[]; nextCursor: string | null; hasMore: boolean };

const page = async (app: ServiceApp, key: string, query = ""): Promise<Page> => {
  const res = await call(app, "GET", `/api/v1/events${query}`, key);
  expect(res.status).toBe(200);
  return json(res);
};

/**
 * Every event of the key's account after `after`, a page of `limit` at a time, waiting until at
 * least `count` are there (on PostgreSQL another reader may be placing them in the feed just then).
 */
async function feed(app: ServiceApp, key: string, count: number, limit = 100): Promise<EventBody[]> {
  const until = Date.now() + 10_000;
  for (;;) {
    const events: EventBody[] = [];
    let after: string | null = null;
    for (;;) {
      const next: Page = await page(app, key, `?limit=${limit}${after ? `&after=${after}` : ""}`);
      events.push(...next.events);
      after = next.nextCursor;
      if (!next.hasMore) break;
    }
    if (events.length >= count || Date.now() > until) return events;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

async function account(db: Parameters<typeof seedAccount>[0]) {
  const owner = await seedAccount(db);
  const bluesky = await seedConnection(db, owner.accountId, "bluesky");
  const youtube = await seedConnection(db, owner.accountId, "youtube");
  const testApp = publisherApp(db, {
    decide: (target) =>
      target.platform === "youtube"
        ? { status: "failed", error: "quotaExceeded: The request cannot be completed" }
        : { status: "published", platformPostId: "at://did:plc:x/app.bsky.feed.post/1" },
  });
  return { ...testApp, ...owner, bluesky, youtube };
}

describe("GET /api/v1/events: success", () => {
  test("lists the account's events in commit order with stable ids, each state change once", async ({
    db,
  }) => {
    const { app, key, bluesky, youtube } = await account(db);
    const scheduled = await json(
      await call(app, "POST", "/api/v1/schedule", key, {
        text: "Later",
        connectionIds: [bluesky],
        scheduledFor: "2026-12-01T09:00:00Z",
      }),
    );
    await call(app, "DELETE", "/api/v1/posts", key, { id: scheduled.postId });
    const published = await json(
      await call(app, "POST", "/api/v1/publish", key, {
        text: "Now",
        mediaUrls: ["https://cdn.example.com/clip.mp4"],
        connectionIds: [bluesky, youtube],
      }),
    );
    const events = await feed(app, key, 6);
    expect(events.map((event) => [event.type, event.postId])).toEqual([
      ["post.scheduled", scheduled.postId],
      ["post.cancelled", scheduled.postId],
      ["post.scheduled", published.postId],
      ["target.published", published.postId],
      ["target.failed", published.postId],
      ["post.partial", published.postId],
    ]);
    expect(events[0]).toMatchObject({
      id: expect.stringMatching(/^evt_/),
      occurredAt: "2026-06-15T06:00:00.000Z",
      data: { postId: scheduled.postId, status: "scheduled", scheduledFor: "2026-12-01T09:00:00.000Z" },
    });
    expect(events[4]).toMatchObject({
      targetId: expect.stringMatching(/^tgt_/),
      data: {
        connectionId: youtube,
        platform: "youtube",
        reason: null,
        error: expect.stringContaining("quota"),
      },
    });
    expect(events[5]?.data.targets).toHaveLength(2);
    expect(new Set(events.map((event) => event.id)).size).toBe(6);
    // Read again, the same events with the same ids.
    expect((await feed(app, key, 6)).map((event) => event.id)).toEqual(events.map((event) => event.id));
  });

  test("pages follow nextCursor without skipping or repeating, and an event's cursor reads on after it", async ({
    db,
  }) => {
    const { app, key, bluesky } = await account(db);
    for (const text of ["one", "two", "three"])
      await call(app, "POST", "/api/v1/publish", key, { text, connectionIds: [bluesky] });
    const all = await feed(app, key, 9);
    expect(all).toHaveLength(9);
    expect((await feed(app, key, 9, 2)).map((event) => event.id)).toEqual(all.map((event) => event.id));
    const first = await page(app, key, "?limit=4");
    expect(first.hasMore).toBe(true);
    expect(first.nextCursor).toBe(first.events[3]?.cursor);
    const rest = await page(app, key, `?after=${all[3]?.cursor}`);
    expect(rest.events.map((event) => event.id)).toEqual(all.slice(4).map((event) => event.id));
    expect(rest.hasMore).toBe(false);
  });

  test("at the end of the feed the cursor given comes back, and later events follow it", async ({ db }) => {
    const { app, key, bluesky } = await account(db);
    const empty = await page(app, key);
    expect(empty).toEqual({ events: [], nextCursor: null, hasMore: false });
    await call(app, "POST", "/api/v1/publish", key, { text: "first", connectionIds: [bluesky] });
    const before = await feed(app, key, 3);
    const cursor = before.at(-1)?.cursor as string;
    expect(await page(app, key, `?after=${cursor}`)).toEqual({
      events: [],
      nextCursor: cursor,
      hasMore: false,
    });
    await call(app, "POST", "/api/v1/publish", key, { text: "second", connectionIds: [bluesky] });
    const after = (await feed(app, key, 6)).slice(3);
    expect(after.map((event) => event.type)).toEqual([
      "post.scheduled",
      "target.published",
      "post.published",
    ]);
    expect((await page(app, key, `?after=${cursor}`)).events.map((event) => event.id)).toEqual(
      after.map((event) => event.id),
    );
  });
});

describe("GET /api/v1/events: errors", () => {
  test("a cursor this service did not issue is 400 VALIDATION_FAILED naming `after`", async ({ db }) => {
    const { app, key } = await account(db);
    const forged = [
      "not-a-cursor!",
      Buffer.from(JSON.stringify(["e", "-1", 0])).toString("base64url"),
      Buffer.from(JSON.stringify(["e", "007", 1])).toString("base64url"),
      Buffer.from(JSON.stringify(["e", "18446744073709551616", 1])).toString("base64url"),
      Buffer.from(JSON.stringify([1, "post_x"])).toString("base64url"),
      Buffer.from(JSON.stringify(["p", "007"])).toString("base64url"),
      Buffer.from(JSON.stringify(["p", "-1"])).toString("base64url"),
      Buffer.from(JSON.stringify(["p", 7])).toString("base64url"),
      Buffer.from(JSON.stringify(["p", "9223372036854775808"])).toString("base64url"),
      "x".repeat(129),
    ];
    for (const after of forged) {
      const res = await call(app, "GET", `/api/v1/events?after=${after}`, key);
      expect(res.status, after).toBe(400);
      expect(await json(res)).toMatchObject({ error: "VALIDATION_FAILED", issues: [{ path: "after" }] });
    }
    const nul = await call(app, "GET", "/api/v1/events?after=%00", key);
    expect(nul.status).toBe(400);
  });

  test("a limit outside 1–500 is 400", async ({ db }) => {
    const { app, key } = await account(db);
    for (const limit of ["0", "501", "ten", "-1"]) {
      const res = await call(app, "GET", `/api/v1/events?limit=${limit}`, key);
      expect(res.status, limit).toBe(400);
      expect(await json(res)).toMatchObject({ error: "VALIDATION_FAILED", issues: [{ path: "limit" }] });
    }
    expect((await call(app, "GET", "/api/v1/events?limit=500", key)).status).toBe(200);
  });
});

describe("GET /api/v1/events: security", () => {
  test("401 without a key, 403 without posts:read", async ({ db }) => {
    const { app } = await account(db);
    const missing = await call(app, "GET", "/api/v1/events", undefined);
    expect(missing.status).toBe(401);
    const uploader = await seedAccount(db, { scopes: ["media:write"] });
    const refused = await call(app, "GET", "/api/v1/events", uploader.key);
    expect(refused.status).toBe(403);
    expect(await json(refused)).toMatchObject({ error: "INSUFFICIENT_SCOPE", requiredScope: "posts:read" });
  });

  test("an account sees only its own events, whatever cursor it sends", async ({ db }) => {
    const { app, key, bluesky } = await account(db);
    await call(app, "POST", "/api/v1/publish", key, { text: "mine", connectionIds: [bluesky] });
    const mine = await feed(app, key, 3);
    const stranger = await seedAccount(db);
    expect((await page(app, stranger.key)).events).toEqual([]);
    const fromStart = encodeEventCursor("0");
    expect((await page(app, stranger.key, `?after=${fromStart}`)).events).toEqual([]);
    expect(mine).toHaveLength(3);
  });
});

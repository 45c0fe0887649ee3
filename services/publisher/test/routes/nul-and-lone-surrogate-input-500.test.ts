import { test } from "@app/testkit";
import { expect } from "vitest";
import { call, publisherApp, seedAccount, seedConnection } from "../support.ts";

// Defect: text from requests reaches PostgreSQL unchecked. A NUL (U+0000) in any text column
// parameter, or a NUL / lone surrogate inside the jsonb post content, makes the query throw and
// the route answer 500 INTERNAL (src/store/posts.ts:38 insertPost, :130 findPost,
// src/store/groups.ts:35, src/store/account-connections.ts:28, src/store/posts.ts:95 listPosts via
// a cursor that decodes to such an id). The zod schemas (src/routes/post-payload.ts,
// groups-shared.ts, posts_get.ts, posts_cancel.ts, domain/cursor.ts) accept these strings.

const cursorOf = (value: unknown) => Buffer.from(JSON.stringify(value)).toString("base64url");

test("NUL bytes and lone surrogates are refused as 400/404, never a 500", async ({ db }) => {
  const { accountId, key } = await seedAccount(db);
  const bluesky = await seedConnection(db, accountId, "bluesky");
  const { app } = publisherApp(db);
  const later = "2026-07-01T09:00:00Z";
  const cases: Array<[string, string, string, unknown?]> = [
    [
      "caption with NUL",
      "POST",
      "/api/v1/schedule",
      { text: "a\u0000b", connectionIds: [bluesky], scheduledFor: later },
    ],
    [
      "caption with a lone surrogate",
      "POST",
      "/api/v1/schedule",
      { text: "a\ud800b", connectionIds: [bluesky], scheduledFor: later },
    ],
    [
      "media URL with NUL",
      "POST",
      "/api/v1/publish",
      { text: "x", connectionIds: [bluesky], mediaUrls: ["https://x.example/a\u0000.jpg"] },
    ],
    [
      "connection id with NUL",
      "POST",
      "/api/v1/schedule",
      { text: "ab", connectionIds: ["\u0000"], scheduledFor: later },
    ],
    ["group id with NUL", "POST", "/api/v1/publish", { text: "x", groupIds: ["\u0000"] }],
    ["group name with NUL", "POST", "/api/v1/groups", { name: "\u0000x", connectionIds: [bluesky] }],
    ["post id with NUL (get)", "GET", "/api/v1/posts/%00"],
    ["post id with NUL (cancel)", "DELETE", "/api/v1/posts", { id: "\u0000" }],
    ["group id with NUL (patch)", "PATCH", "/api/v1/groups/%00", { name: "y" }],
    ["cursor whose id holds NUL", "GET", `/api/v1/posts?cursor=${cursorOf([1, "\u0000"])}`],
  ];
  const statuses: Record<string, number> = {};
  for (const [label, method, path, body] of cases) {
    const res = await call(app, method, path, key, body);
    statuses[label] = res.status;
  }
  // Observed: every one of these is 500 {"error":"INTERNAL"}.
  expect(Object.entries(statuses).filter(([, status]) => status !== 400 && status !== 404)).toEqual([]);
});

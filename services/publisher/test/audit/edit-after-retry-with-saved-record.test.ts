/**
 * A retried post is `scheduled` again, but a target that kept its saved platform state (a Bluesky
 * record key whose record may exist) has reached the platform as far as anyone knows: an edit must
 * not drop or rewrite it (409 POST_PUBLISHING_STARTED, nothing changed), or the copy on the
 * platform would no longer be tracked, and a re-run would report the old text as the new post.
 */
import { json, test } from "@app/testkit";
import { describe, expect } from "vitest";
import { call, publisherApp, seedAccount, seedConnection } from "../support.ts";

describe("editing a retried post", () => {
  test("a target that kept its saved record key cannot be edited away", async ({ db }) => {
    const { accountId, key } = await seedAccount(db);
    const bluesky = await seedConnection(db, accountId, "bluesky");
    const other = await seedConnection(db, accountId, "bluesky");
    const { app } = publisherApp(db, {
      decide: () => ({ status: "failed", error: "UpstreamFailure: PDS 502" }),
    });
    const created = await call(app, "POST", "/api/v1/publish", key, {
      caption: "Original words",
      connectionIds: [bluesky],
    });
    const postId = (await json(created)).postId as string;
    // What the Bluesky publisher saves before createRecord, whose answer was then lost.
    const handle = { rkey: "3kabcdefghi22", repo: "did:plc:x", createdAt: "2026-06-15T06:00:00.000Z" };
    await db.query("UPDATE publisher.post_targets SET platform_handle = $2::jsonb WHERE post_id = $1", [
      postId,
      JSON.stringify(handle),
    ]);
    expect((await call(app, "POST", `/api/v1/posts/${postId}/retry`, key, {})).status).toBe(200);
    const targets = () =>
      db.query(
        "SELECT id, connection_id, status, platform_handle FROM publisher.post_targets WHERE post_id = $1",
        [postId],
      );
    const before = await targets();

    const edit = await call(app, "PATCH", `/api/v1/posts/${postId}`, key, {
      caption: "Entirely different words",
      connectionIds: [other],
    });

    expect(edit.status).toBe(409);
    expect((await json(edit)).error).toBe("POST_PUBLISHING_STARTED");
    expect(await targets()).toEqual(before);
  });
});

import { json, test } from "@app/testkit";
import { describe, expect } from "vitest";
import { call, publisherApp, seedAccount, seedConnection } from "../support.ts";

async function setup(db: Parameters<typeof seedAccount>[0]) {
  const account = await seedAccount(db);
  const a = await seedConnection(db, account.accountId, "youtube");
  const b = await seedConnection(db, account.accountId, "tiktok");
  return { ...account, a, b, ...publisherApp(db) };
}

describe("groups: success", () => {
  test("create, list, rename, change connections and delete a group", async ({ db }) => {
    const { app, key, a, b } = await setup(db);
    const created = await call(app, "POST", "/api/v1/groups", key, {
      name: "Video",
      connectionIds: [a, b, a],
    });
    expect(created.status).toBe(201);
    const { group } = await json(created);
    expect(group).toEqual({ id: expect.stringMatching(/^grp_/), name: "Video", connection_ids: [a, b] });
    expect(await json(await call(app, "GET", "/api/v1/groups", key))).toEqual({ groups: [group] });
    const renamed = await json(
      await call(app, "PATCH", `/api/v1/groups/${group.id}`, key, { name: "Shorts" }),
    );
    expect(renamed.group).toEqual({ ...group, name: "Shorts" });
    const narrowed = await json(
      await call(app, "PATCH", `/api/v1/groups/${group.id}`, key, { connectionIds: [b] }),
    );
    expect(narrowed.group.connection_ids).toEqual([b]);
    expect(await json(await call(app, "DELETE", `/api/v1/groups/${group.id}`, key))).toEqual({
      success: true,
    });
    expect(await json(await call(app, "GET", "/api/v1/groups", key))).toEqual({ groups: [] });
  });
});

describe("groups: errors", () => {
  test("a connection of another account is refused with its index", async ({ db }) => {
    const { app, key, a } = await setup(db);
    const other = await seedAccount(db);
    const foreign = await seedConnection(db, other.accountId, "bluesky");
    const res = await call(app, "POST", "/api/v1/groups", key, {
      name: "Mixed",
      connectionIds: [a, foreign],
    });
    expect(res.status).toBe(400);
    expect(await json(res)).toMatchObject({
      error: "VALIDATION_FAILED",
      issues: [{ path: "connectionIds.1" }],
    });
  });

  test("a name taken is 409; an empty body, a blank name and no connections are 400", async ({ db }) => {
    const { app, key, a } = await setup(db);
    await call(app, "POST", "/api/v1/groups", key, { name: "One", connectionIds: [a] });
    const taken = await call(app, "POST", "/api/v1/groups", key, { name: "One", connectionIds: [a] });
    expect(taken.status).toBe(409);
    expect(await json(taken)).toMatchObject({ error: "GROUP_NAME_TAKEN" });
    for (const body of [{}, { name: " ", connectionIds: [a] }, { name: "Two", connectionIds: [] }]) {
      expect((await call(app, "POST", "/api/v1/groups", key, body)).status).toBe(400);
    }
    const second = await json(
      await call(app, "POST", "/api/v1/groups", key, { name: "Two", connectionIds: [a] }),
    );
    const clash = await call(app, "PATCH", `/api/v1/groups/${second.group.id}`, key, { name: "One" });
    expect(clash.status).toBe(409);
    expect((await call(app, "PATCH", `/api/v1/groups/${second.group.id}`, key, {})).status).toBe(400);
  });

  test("an unknown or foreign group is 404 on rename and delete", async ({ db }) => {
    const { app, key, a } = await setup(db);
    const other = await setup(db);
    const theirs = await json(
      await call(other.app, "POST", "/api/v1/groups", other.key, {
        name: "Theirs",
        connectionIds: [other.a],
      }),
    );
    for (const id of ["grp_nope", theirs.group.id]) {
      const renamed = await call(app, "PATCH", `/api/v1/groups/${id}`, key, {
        name: "Mine",
        connectionIds: [a],
      });
      expect(renamed.status).toBe(404);
      expect(await json(renamed)).toMatchObject({ error: "GROUP_NOT_FOUND" });
      expect((await call(app, "DELETE", `/api/v1/groups/${id}`, key)).status).toBe(404);
    }
  });
});

describe("groups: security", () => {
  test("listing needs posts:read and changing needs posts:write", async ({ db }) => {
    const { app, a } = await setup(db);
    const reader = await seedAccount(db, { scopes: ["posts:read"] });
    const uploader = await seedAccount(db, { scopes: ["media:write"] });
    expect((await call(app, "GET", "/api/v1/groups", reader.key)).status).toBe(200);
    expect((await call(app, "GET", "/api/v1/groups", uploader.key)).status).toBe(403);
    expect(
      (await call(app, "POST", "/api/v1/groups", reader.key, { name: "X", connectionIds: [a] })).status,
    ).toBe(403);
    expect((await call(app, "DELETE", "/api/v1/groups/grp_x", reader.key)).status).toBe(403);
    expect((await call(app, "GET", "/api/v1/groups", undefined)).status).toBe(401);
  });
});

import { json } from "@app/testkit";
import { afterAll, beforeAll, beforeEach, describe, expect, test } from "vitest";
import { DEMO_BLUESKY } from "../../src/demo.ts";
import { postJson, type Sandbox, startSandbox } from "../harness.ts";

let sandbox: Sandbox;
beforeAll(async () => {
  sandbox = await startSandbox();
});
afterAll(() => sandbox.close());
beforeEach(() => fetch(`${sandbox.url}/_sandbox/reset`, { method: "POST" }));

const fault = (spec: Record<string, unknown>) => fetch(`${sandbox.url}/_sandbox/faults`, postJson(spec));
const login = () =>
  fetch(
    `${sandbox.url}/xrpc/com.atproto.server.createSession`,
    postJson({ identifier: DEMO_BLUESKY.handle, password: DEMO_BLUESKY.appPassword }),
  );

describe("POST /_sandbox/faults: success", () => {
  test("the next N calls fail with the status, the platform's error and Retry-After, then calls succeed", async () => {
    const created = await fault({
      operation: "com.atproto.server.createSession",
      status: 429,
      count: 2,
      retryAfterSeconds: 7,
    });
    expect(created.status).toBe(201);
    for (let index = 0; index < 2; index += 1) {
      const res = await login();
      expect(res.status).toBe(429);
      expect(res.headers.get("retry-after")).toBe("7");
      expect(await json(res)).toEqual({ error: "RateLimitExceeded", message: "Rate Limit Exceeded" });
    }
    expect((await login()).status).toBe(200);
    expect((await json(await fetch(`${sandbox.url}/_sandbox/faults`))).faults).toEqual([]);
  });

  test("a reset fault drops the connection, and the request log says which fault hit", async () => {
    const { fault: created } = await json(
      await fault({ operation: "com.atproto.server.createSession", kind: "reset" }),
    );
    await expect(login()).rejects.toThrow();
    const { requests } = await json(
      await fetch(`${sandbox.url}/_sandbox/requests?operation=com.atproto.server.createSession`),
    );
    expect(requests).toEqual([expect.objectContaining({ fault: created.id, status: null })]);
  });

  test("a timeout fault holds the request until the client gives up", async () => {
    await fault({ operation: "com.atproto.server.createSession", kind: "timeout", holdMs: 60_000 });
    await expect(
      fetch(`${sandbox.url}/xrpc/com.atproto.server.createSession`, {
        ...postJson({}),
        signal: AbortSignal.timeout(300),
      }),
    ).rejects.toThrow(/aborted|timeout/i);
    expect((await login()).status).toBe(200);
  });
});

describe("POST /_sandbox/faults: errors", () => {
  test("an unknown operation is a 400 naming where to look", async () => {
    const res = await fault({ operation: "youtube.videos.rate" });
    expect(res.status).toBe(400);
    expect(await json(res)).toMatchObject({ error: "UNKNOWN_OPERATION" });
  });

  test("a status outside 400–599 or a zero count is VALIDATION_FAILED", async () => {
    expect((await json(await fault({ operation: "tiktok.upload", status: 200 }))).error).toBe(
      "VALIDATION_FAILED",
    );
    expect((await json(await fault({ operation: "tiktok.upload", count: 0 }))).error).toBe(
      "VALIDATION_FAILED",
    );
  });

  test("every operation the faults accept is listed", async () => {
    const { operations } = await json(await fetch(`${sandbox.url}/_sandbox/operations`));
    expect(operations.map((entry: { operation: string }) => entry.operation)).toEqual(
      expect.arrayContaining([
        "google.oauth.token",
        "youtube.videos.insert",
        "youtube.videos.upload",
        "tiktok.video.init",
        "tiktok.status.fetch",
        "com.atproto.repo.createRecord",
      ]),
    );
  });
});

describe("POST /_sandbox/faults: security", () => {
  test("an injected error never reaches the handler: nothing is created", async () => {
    const session = await json(await login());
    await fault({ operation: "com.atproto.repo.createRecord", status: 500 });
    const res = await fetch(
      `${sandbox.url}/xrpc/com.atproto.repo.createRecord`,
      postJson(
        {
          repo: DEMO_BLUESKY.did,
          collection: "app.bsky.feed.post",
          record: { $type: "app.bsky.feed.post", text: "x", createdAt: "2026-01-01T00:00:00Z" },
        },
        session.accessJwt,
      ),
    );
    expect(res.status).toBe(500);
    expect((await json(await fetch(`${sandbox.url}/_sandbox/bluesky/records`))).records).toEqual([]);
  });
});

import { json } from "@app/testkit";
import { AtpAgent } from "@atproto/api";
import { afterAll, beforeAll, beforeEach, describe, expect, test } from "vitest";
import { DEMO_BLUESKY } from "../../src/demo.ts";
import { postJson, type Sandbox, startSandbox } from "../harness.ts";

let sandbox: Sandbox;
beforeAll(async () => {
  sandbox = await startSandbox((settings) => {
    settings.bluesky.sessionsPerFiveMinutes = 3;
  });
});
afterAll(() => sandbox.close());
beforeEach(() => fetch(`${sandbox.url}/_sandbox/reset`, { method: "POST" }));

const xrpc = (name: string, init?: RequestInit) => fetch(`${sandbox.url}/xrpc/${name}`, init);
const login = (identifier: string = DEMO_BLUESKY.handle, password: string = DEMO_BLUESKY.appPassword) =>
  xrpc("com.atproto.server.createSession", postJson({ identifier, password }));
const withBearer = (token: string): RequestInit => ({
  method: "POST",
  headers: { authorization: `Bearer ${token}` },
});

describe("com.atproto.server.createSession and refreshSession: success", () => {
  test("the official client logs in with the handle and app password", async () => {
    const agent = new AtpAgent({ service: sandbox.url });
    const res = await agent.login({ identifier: DEMO_BLUESKY.handle, password: DEMO_BLUESKY.appPassword });
    expect(res.data).toMatchObject({ did: DEMO_BLUESKY.did, handle: DEMO_BLUESKY.handle });
    expect(agent.session?.accessJwt.split(".")).toHaveLength(3);
  });

  test("a refresh answers a new pair and the old refresh token stops working", async () => {
    const first = await json(await login());
    const refreshed = await xrpc("com.atproto.server.refreshSession", withBearer(first.refreshJwt));
    expect(refreshed.status).toBe(200);
    const second = await json(refreshed);
    expect(second.refreshJwt).not.toBe(first.refreshJwt);
    const reused = await xrpc("com.atproto.server.refreshSession", withBearer(first.refreshJwt));
    expect(reused.status).toBe(400);
    expect(await json(reused)).toEqual({ error: "ExpiredToken", message: "Token has been revoked" });
  });

  test("createSession sends the ratelimit headers", async () => {
    const res = await login();
    expect(res.headers.get("ratelimit-limit")).toBe("3");
    expect(res.headers.get("ratelimit-remaining")).toBe("2");
  });
});

describe("com.atproto.server.createSession and refreshSession: errors", () => {
  test("a wrong password is 401 AuthenticationRequired", async () => {
    const res = await login(DEMO_BLUESKY.handle, "nope-nope-nope-nope");
    expect(res.status).toBe(401);
    expect(await json(res)).toEqual({
      error: "AuthenticationRequired",
      message: "Invalid identifier or password",
    });
  });

  test("a body without identifier is 400 InvalidRequest", async () => {
    const res = await xrpc("com.atproto.server.createSession", postJson({ password: "x" }));
    expect(res.status).toBe(400);
    expect((await json(res)).error).toBe("InvalidRequest");
  });

  test("past the session limit, createSession is 429 RateLimitExceeded", async () => {
    for (let index = 0; index < 3; index += 1) expect((await login()).status).toBe(200);
    const res = await login();
    expect(res.status).toBe(429);
    expect((await json(res)).error).toBe("RateLimitExceeded");
    expect(Number(res.headers.get("ratelimit-reset"))).toBeGreaterThan(0);
  });
});

describe("com.atproto.server.createSession and refreshSession: security", () => {
  test("an access token cannot refresh, and a refresh token cannot call the API", async () => {
    const session = await json(await login());
    expect(
      await json(await xrpc("com.atproto.server.refreshSession", withBearer(session.accessJwt))),
    ).toMatchObject({ error: "InvalidToken" });
    const api = await xrpc("com.atproto.server.getSession", {
      headers: { authorization: `Bearer ${session.refreshJwt}` },
    });
    expect(api.status).toBe(400);
    expect((await json(api)).error).toBe("InvalidToken");
  });

  test("a forged token is 401 InvalidToken; an expired one 400 ExpiredToken", async () => {
    const session = await json(await login());
    const [header, payload] = session.accessJwt.split(".");
    const forged = await xrpc("com.atproto.server.getSession", {
      headers: { authorization: `Bearer ${header}.${payload}.AAAA` },
    });
    expect(forged.status).toBe(401);
    await fetch(`${sandbox.url}/_sandbox/tokens/expire`, postJson({ platform: "bluesky" }));
    const expired = await xrpc("com.atproto.server.getSession", {
      headers: { authorization: `Bearer ${session.accessJwt}` },
    });
    expect(expired.status).toBe(400);
    expect(await json(expired)).toEqual({ error: "ExpiredToken", message: "Token has expired" });
  });
});

import { json } from "@app/testkit";
import { AtpAgent, lexicons } from "@atproto/api";
import { afterAll, beforeAll, beforeEach, describe, expect, test } from "vitest";
import { DEMO_BLUESKY, DEMO_BLUESKY_SELF_HOSTED } from "../../src/demo.ts";
import { manualClock, postJson, type SandboxNetwork, startSandboxNetwork } from "../harness.ts";

const clock = manualClock();
const GRACE_SECONDS = 7200;
let sandbox: SandboxNetwork;
beforeAll(async () => {
  sandbox = await startSandboxNetwork(
    (settings) => {
      settings.bluesky.sessionsPerFiveMinutes = 3;
    },
    { clock },
  );
});
afterAll(() => sandbox.close());
beforeEach(() => fetch(`${sandbox.url}/_sandbox/reset`, { method: "POST" }));

const xrpc = (name: string, init?: RequestInit, service = sandbox.url) =>
  fetch(`${service}/xrpc/${name}`, init);
const login = (
  identifier: string = DEMO_BLUESKY.handle,
  password: string = DEMO_BLUESKY.appPassword,
  service = sandbox.url,
) => xrpc("com.atproto.server.createSession", postJson({ identifier, password }), service);
const withBearer = (token: string): RequestInit => ({
  method: "POST",
  headers: { authorization: `Bearer ${token}` },
});
const refresh = (token: string) => xrpc("com.atproto.server.refreshSession", withBearer(token));
const jti = (jwt: string) =>
  JSON.parse(Buffer.from(jwt.split(".")[1] ?? "", "base64url").toString("utf8")).jti as string;

describe("com.atproto.server.createSession, refreshSession, getSession: success", () => {
  test("the official client logs in with the handle and app password", async () => {
    const agent = new AtpAgent({ service: sandbox.url });
    const res = await agent.login({ identifier: DEMO_BLUESKY.handle, password: DEMO_BLUESKY.appPassword });
    expect(res.data).toMatchObject({ did: DEMO_BLUESKY.did, handle: DEMO_BLUESKY.handle });
    expect(agent.session?.accessJwt.split(".")).toHaveLength(3);
    expect(agent.pdsUrl?.origin).toBe(sandbox.url);
  });

  test("the session carries the account's DID document, naming this PDS; the answer fits the lexicon", async () => {
    const session = await json(await login());
    expect(() => lexicons.assertValidXrpcOutput("com.atproto.server.createSession", session)).not.toThrow();
    expect(session.didDoc).toMatchObject({
      id: DEMO_BLUESKY.did,
      alsoKnownAs: [`at://${DEMO_BLUESKY.handle}`],
      service: [{ id: "#atproto_pds", type: "AtprotoPersonalDataServer", serviceEndpoint: sandbox.url }],
    });
    const got = await json(
      await xrpc("com.atproto.server.getSession", {
        headers: { authorization: `Bearer ${session.accessJwt}` },
      }),
    );
    expect(got).toMatchObject({ did: DEMO_BLUESKY.did, didDoc: session.didDoc });
  });

  test("a refresh answers a new pair; the old refresh token keeps refreshing, into the same next token, for the grace period", async () => {
    const first = await json(await login());
    const refreshed = await refresh(first.refreshJwt);
    expect(refreshed.status).toBe(200);
    const second = await json(refreshed);
    expect(second.refreshJwt).not.toBe(first.refreshJwt);
    clock.advance((GRACE_SECONDS - 60) * 1000);
    const reused = await refresh(first.refreshJwt);
    expect(reused.status).toBe(200);
    expect(jti((await json(reused)).refreshJwt)).toBe(jti(second.refreshJwt));
    expect((await refresh(second.refreshJwt)).status).toBe(200);
  });

  test("after the grace period the rotated refresh token is ExpiredToken 'Token has been revoked'", async () => {
    const first = await json(await login());
    expect((await refresh(first.refreshJwt)).status).toBe(200);
    clock.advance(GRACE_SECONDS * 1000);
    const late = await refresh(first.refreshJwt);
    expect(late.status).toBe(400);
    expect(await json(late)).toEqual({ error: "ExpiredToken", message: "Token has been revoked" });
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

  test("an account of the other PDS cannot sign in here, and the other way round", async () => {
    const here = await login(DEMO_BLUESKY_SELF_HOSTED.handle, DEMO_BLUESKY_SELF_HOSTED.appPassword);
    expect(here.status).toBe(401);
    expect(await json(here)).toEqual({
      error: "AuthenticationRequired",
      message: "Invalid identifier or password",
    });
    const there = await login(DEMO_BLUESKY.handle, DEMO_BLUESKY.appPassword, sandbox.pds2Url);
    expect(there.status).toBe(401);
  });

  test("a body without identifier is 400 InvalidRequest naming the property", async () => {
    const res = await xrpc("com.atproto.server.createSession", postJson({ password: "x" }));
    expect(res.status).toBe(400);
    expect(await json(res)).toEqual({
      error: "InvalidRequest",
      message: 'Input must have the property "identifier"',
    });
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
    expect(await json(await refresh(session.accessJwt))).toMatchObject({ error: "InvalidToken" });
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

  test("a token of one PDS is not accepted by the other", async () => {
    const session = await json(await login());
    const elsewhere = await xrpc(
      "com.atproto.server.getSession",
      { headers: { authorization: `Bearer ${session.accessJwt}` } },
      sandbox.pds2Url,
    );
    expect(elsewhere.status).toBe(401);
    expect(await json(elsewhere)).toEqual({ error: "InvalidToken", message: "Token could not be verified" });
  });

  test("a signed-out refresh token is revoked at once (no grace)", async () => {
    const session = await json(await login());
    expect((await xrpc("com.atproto.server.deleteSession", withBearer(session.refreshJwt))).status).toBe(200);
    const after = await refresh(session.refreshJwt);
    expect(after.status).toBe(400);
    expect(await json(after)).toEqual({ error: "ExpiredToken", message: "Token has been revoked" });
  });
});

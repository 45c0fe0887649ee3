import { json } from "@app/testkit";
import { afterAll, beforeAll, beforeEach, describe, expect, test } from "vitest";
import { DEMO_TIKTOK } from "../../src/demo.ts";
import { form, postJson, type Sandbox, startSandbox, tiktokTokens } from "../harness.ts";

let sandbox: Sandbox;
beforeAll(async () => {
  sandbox = await startSandbox();
});
afterAll(() => sandbox.close());
beforeEach(() => fetch(`${sandbox.url}/_sandbox/reset`, { method: "POST" }));

const client = { client_key: DEMO_TIKTOK.clientKey, client_secret: DEMO_TIKTOK.clientSecret };
const revoke = (fields: Record<string, string>) => fetch(`${sandbox.url}/v2/oauth/revoke/`, form(fields));
const creatorInfo = (token: string) =>
  fetch(`${sandbox.url}/v2/post/publish/creator_info/query/`, postJson({}, token));

describe("POST /v2/oauth/revoke/: success", () => {
  test("revoking the access token ends the grant: the token is refused, the refresh token is invalid_grant", async () => {
    const tokens = await tiktokTokens(sandbox.url);
    expect((await creatorInfo(tokens.access_token)).status).toBe(200);
    const res = await revoke({ ...client, token: tokens.access_token });
    expect(res.status).toBe(200);
    expect(await json(res)).toEqual({});
    expect((await json(await creatorInfo(tokens.access_token))).error.code).toBe("access_token_invalid");
    const refreshed = await fetch(
      `${sandbox.url}/v2/oauth/token/`,
      form({ ...client, grant_type: "refresh_token", refresh_token: tokens.refresh_token }),
    );
    expect(refreshed.status).toBe(400);
    expect((await json(refreshed)).error).toBe("invalid_grant");
  });

  test("the user may authorize the app again afterwards", async () => {
    const first = await tiktokTokens(sandbox.url);
    await revoke({ ...client, token: first.access_token });
    const again = await tiktokTokens(sandbox.url);
    expect((await creatorInfo(again.access_token)).status).toBe(200);
  });
});

describe("POST /v2/oauth/revoke/: errors", () => {
  test("no token is 400 invalid_request, a JSON body too", async () => {
    const none = await revoke(client);
    expect(none.status).toBe(400);
    expect(await json(none)).toMatchObject({ error: "invalid_request", log_id: expect.any(String) });
    const asJson = await fetch(`${sandbox.url}/v2/oauth/revoke/`, postJson({ ...client, token: "act.x" }));
    expect((await json(asJson)).error).toBe("invalid_request");
  });
});

describe("POST /v2/oauth/revoke/: security", () => {
  test("a wrong client secret is 401 invalid_client and the token keeps working", async () => {
    const tokens = await tiktokTokens(sandbox.url);
    const res = await revoke({
      client_key: DEMO_TIKTOK.clientKey,
      client_secret: "nope",
      token: tokens.access_token,
    });
    expect(res.status).toBe(401);
    expect((await json(res)).error).toBe("invalid_client");
    expect((await creatorInfo(tokens.access_token)).status).toBe(200);
  });
});

import { json } from "@app/testkit";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { tokenFingerprint } from "../../src/kit/request-log.ts";
import { postJson, type Sandbox, startSandbox, tiktokTokens } from "../harness.ts";

let sandbox: Sandbox;
beforeAll(async () => {
  sandbox = await startSandbox();
});
afterAll(() => sandbox.close());

describe("GET /_sandbox/requests: success", () => {
  test("each call is logged with method, path, status and a fingerprint of its token", async () => {
    const { access_token } = await tiktokTokens(sandbox.url);
    await fetch(`${sandbox.url}/v2/post/publish/creator_info/query/`, postJson({}, access_token));
    const { requests } = await json(
      await fetch(`${sandbox.url}/_sandbox/requests?operation=tiktok.creator_info.query`),
    );
    expect(requests).toEqual([
      expect.objectContaining({
        platform: "tiktok",
        method: "POST",
        path: "/v2/post/publish/creator_info/query/",
        status: 200,
        authorization: `Bearer [redacted] #${tokenFingerprint(access_token)}`,
      }),
    ]);
  });

  test("since= returns only later entries, and DELETE empties the log", async () => {
    const { requests } = await json(await fetch(`${sandbox.url}/_sandbox/requests`));
    const last = requests.at(-1).seq;
    expect((await json(await fetch(`${sandbox.url}/_sandbox/requests?since=${last}`))).requests).toEqual([]);
    await fetch(`${sandbox.url}/_sandbox/requests`, { method: "DELETE" });
    expect((await json(await fetch(`${sandbox.url}/_sandbox/requests`))).requests).toEqual([]);
  });
});

describe("GET /_sandbox/requests: errors", () => {
  test("an unknown platform filter is VALIDATION_FAILED", async () => {
    const res = await fetch(`${sandbox.url}/_sandbox/requests?platform=myspace`);
    expect(res.status).toBe(400);
    expect((await json(res)).error).toBe("VALIDATION_FAILED");
  });
});

describe("GET /_sandbox/requests: security", () => {
  test("no token, refresh token or client secret appears in the log", async () => {
    const tokens = await tiktokTokens(sandbox.url);
    const text = JSON.stringify(await json(await fetch(`${sandbox.url}/_sandbox/requests`)));
    expect(text).not.toContain(tokens.access_token);
    expect(text).not.toContain(tokens.refresh_token);
    expect(text).not.toContain("sandbox-demo-tiktok-client-secret");
  });
});

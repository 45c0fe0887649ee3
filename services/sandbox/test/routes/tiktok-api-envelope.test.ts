import { request } from "node:http";
import { json } from "@app/testkit";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { postJson, type Sandbox, startSandbox, tiktokTokens } from "../harness.ts";

let sandbox: Sandbox;
let token: string;
beforeAll(async () => {
  sandbox = await startSandbox();
  token = (await tiktokTokens(sandbox.url)).access_token;
});
afterAll(() => sandbox.close());

const envelope = (code: string) => ({
  data: {},
  error: { code, message: expect.any(String), log_id: expect.stringMatching(/^\d{14}[0-9A-F]{20}$/) },
});

/** A POST whose body goes chunked (no Content-Length), as a streaming client sends it. */
function postChunked(path: string, body: Buffer): Promise<{ status: number; body: unknown }> {
  return new Promise((resolve, reject) => {
    const req = request(`${sandbox.url}${path}`, {
      method: "POST",
      headers: {
        authorization: `Bearer ${token}`,
        "content-type": "application/json; charset=UTF-8",
        "transfer-encoding": "chunked",
      },
    });
    req.on("error", reject);
    req.on("response", (res) => {
      const chunks: Buffer[] = [];
      res.on("data", (chunk: Buffer) => chunks.push(chunk));
      res.on("end", () =>
        resolve({ status: res.statusCode ?? 0, body: JSON.parse(Buffer.concat(chunks).toString("utf8")) }),
      );
    });
    for (let offset = 0; offset < body.length; offset += 64 * 1024)
      req.write(body.subarray(offset, offset + 64 * 1024));
    req.end();
  });
}

describe("TikTok's envelope on every /v2 answer", () => {
  test("an unknown /v2 path is 404 in TikTok's envelope, not the sandbox's own body", async () => {
    for (const path of ["/v2/post/publish/nothing/", "/v2/video/list/", "/v2/"]) {
      const res = await fetch(`${sandbox.url}${path}`, postJson({}, token));
      expect(res.status).toBe(404);
      expect(await json(res)).toEqual(envelope("invalid_params"));
    }
  });

  test("a known path asked with another method is 405 in TikTok's envelope", async () => {
    const res = await fetch(`${sandbox.url}/v2/post/publish/creator_info/query/`, {
      headers: { authorization: `Bearer ${token}` },
    });
    expect(res.status).toBe(405);
    expect(await json(res)).toEqual(envelope("invalid_params"));
  });

  test("a body that is not JSON is 400 invalid_params", async () => {
    const res = await fetch(`${sandbox.url}/v2/post/publish/status/fetch/`, postJson("{publish_id", token));
    expect(res.status).toBe(400);
    expect(await json(res)).toEqual(envelope("invalid_params"));
  });

  test("a chunked JSON body (no Content-Length) is read as any other", async () => {
    const answer = await postChunked("/v2/post/publish/creator_info/query/", Buffer.from("{}"));
    expect(answer.status).toBe(200);
    expect(answer.body).toMatchObject({ error: { code: "ok" } });
  });

  test("a body over 1 MiB, chunked or declared, is 413 in TikTok's envelope", async () => {
    const big = Buffer.from(JSON.stringify({ publish_id: "x".repeat(1024 * 1024 + 10) }));
    const chunked = await postChunked("/v2/post/publish/status/fetch/", big);
    expect(chunked.status).toBe(413);
    expect(chunked.body).toEqual(envelope("invalid_params"));
    const declared = await fetch(
      `${sandbox.url}/v2/post/publish/status/fetch/`,
      postJson(big.toString(), token),
    );
    expect(declared.status).toBe(413);
    expect(await json(declared)).toEqual(envelope("invalid_params"));
  });

  test("the OAuth endpoints under /v2 keep their own error body ({error, error_description, log_id})", async () => {
    const res = await fetch(`${sandbox.url}/v2/oauth/token/`, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: "x".repeat(1024 * 1024 + 1),
    });
    expect(res.status).toBe(413);
    expect(await json(res)).toEqual({
      error: "invalid_request",
      error_description: expect.any(String),
      log_id: expect.any(String),
    });
  });
});

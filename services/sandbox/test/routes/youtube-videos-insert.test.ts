import { json } from "@app/testkit";
import { afterAll, beforeAll, beforeEach, describe, expect, test } from "vitest";
import { DEMO_GOOGLE } from "../../src/demo.ts";
import {
  form,
  GOOGLE_REDIRECT,
  googleTokens,
  locationParams,
  type Sandbox,
  startSandbox,
} from "../harness.ts";

const SCOPE = "https://www.googleapis.com/auth/";

/** A Google access token for the creator, granted exactly `scopes`. */
async function tokenWithScopes(scopes: string[]): Promise<string> {
  const redirect = locationParams(
    await fetch(
      `${sandbox.url}/o/oauth2/v2/auth/approve`,
      form({
        client_id: DEMO_GOOGLE.clientId,
        redirect_uri: GOOGLE_REDIRECT,
        response_type: "code",
        scope: scopes.map((scope) => SCOPE + scope).join(" "),
        decision: "allow",
        account: DEMO_GOOGLE.accounts.creator.id,
      }),
    ),
  );
  const res = await fetch(
    `${sandbox.url}/token`,
    form({
      grant_type: "authorization_code",
      code: redirect.get("code") ?? "",
      client_id: DEMO_GOOGLE.clientId,
      client_secret: DEMO_GOOGLE.clientSecret,
      redirect_uri: GOOGLE_REDIRECT,
    }),
  );
  return (await json(res)).access_token;
}

let sandbox: Sandbox;
let accessToken: string;
beforeAll(async () => {
  sandbox = await startSandbox((settings) => {
    settings.google.uploadsPerDay = 5;
  });
});
afterAll(() => sandbox.close());
beforeEach(async () => {
  await fetch(`${sandbox.url}/_sandbox/reset`, { method: "POST" });
  accessToken = (await googleTokens(sandbox.url)).access_token;
});

const metadata = {
  snippet: { title: "Launch day", description: "Our first video", tags: ["demo"] },
  status: { privacyStatus: "unlisted" },
};

function insert(
  body: unknown,
  headers: Record<string, string> = {},
  query = "uploadType=resumable&part=snippet,status",
) {
  return fetch(`${sandbox.url}/upload/youtube/v3/videos?${query}`, {
    method: "POST",
    headers: {
      authorization: `Bearer ${accessToken}`,
      "content-type": "application/json; charset=UTF-8",
      "x-upload-content-length": "1000",
      "x-upload-content-type": "video/mp4",
      ...headers,
    },
    body: typeof body === "string" ? body : JSON.stringify(body),
  });
}

describe("POST /upload/youtube/v3/videos?uploadType=resumable: success", () => {
  test("a valid insert answers 200 with a session URI in Location on the sandbox", async () => {
    const res = await insert(metadata);
    expect(res.status).toBe(200);
    const location = new URL(res.headers.get("location") ?? "");
    expect(location.origin).toBe(sandbox.url);
    expect(location.pathname).toBe("/upload/youtube/v3/videos");
    expect(location.searchParams.get("upload_id")).toMatch(/^[\w-]{20,}$/);
  });

  test("the channel list names the signed-in account's channel (with a scope that may read)", async () => {
    const reader = await tokenWithScopes(["youtube.upload", "youtube.readonly"]);
    const res = await fetch(`${sandbox.url}/youtube/v3/channels?part=snippet&mine=true`, {
      headers: { authorization: `Bearer ${reader}` },
    });
    const body = await json(res);
    expect(body.items).toEqual([
      {
        kind: "youtube#channel",
        id: DEMO_GOOGLE.accounts.creator.channel.id,
        snippet: { title: DEMO_GOOGLE.accounts.creator.channel.title },
      },
    ]);
  });
});

describe("POST /upload/youtube/v3/videos?uploadType=resumable: errors", () => {
  test.for<[string, unknown, string]>([
    ["a title over 100 characters", { snippet: { title: "t".repeat(101) } }, "invalidTitle"],
    ["a title with < or >", { snippet: { title: "a <b> c" } }, "invalidTitle"],
    ["an empty title", { snippet: { title: " " } }, "invalidTitle"],
    [
      "a description over 5000 bytes",
      { snippet: { title: "ok", description: "é".repeat(2501) } },
      "invalidDescription",
    ],
    [
      "an unknown privacy status",
      { snippet: { title: "ok" }, status: { privacyStatus: "friends" } },
      "invalidPrivacyStatus",
    ],
    [
      "a publishAt on a public video",
      { snippet: { title: "ok" }, status: { privacyStatus: "public", publishAt: "2999-01-01T00:00:00Z" } },
      "invalidPublishAt",
    ],
    ["an unknown category", { snippet: { title: "ok", categoryId: "999" } }, "invalidCategoryId"],
    ["a body that is not JSON", "{nope", "parseError"],
  ])("%s is a 400 with Google's error body and reason", async ([, body, reason]) => {
    const res = await insert(body);
    expect(res.status).toBe(400);
    const answer = await json(res);
    expect(answer.error).toMatchObject({
      code: 400,
      status: "INVALID_ARGUMENT",
      errors: [expect.objectContaining({ reason })],
    });
    expect(res.headers.get("location")).toBeNull();
  });

  test("a missing part is a 400 naming the parameter", async () => {
    const res = await insert(metadata, {}, "uploadType=resumable");
    expect(res.status).toBe(400);
    expect((await json(res)).error.errors[0].reason).toBe("required");
  });

  test("a non-video X-Upload-Content-Type is refused as Google words it", async () => {
    const res = await insert(metadata, { "x-upload-content-type": "image/png" });
    expect(res.status).toBe(400);
    expect((await json(res)).error.errors[0]).toMatchObject({
      reason: "badRequest",
      message:
        "Media type 'image/png' is not supported. Valid media types: [video/*, application/octet-stream]",
    });
  });

  test("an unknown part is 400 unknownPart naming it, as the parameter at fault", async () => {
    const res = await insert(metadata, {}, "uploadType=resumable&part=snippet,snippets");
    expect(res.status).toBe(400);
    expect((await json(res)).error.errors[0]).toEqual({
      message: "'snippets'",
      domain: "youtube.part",
      reason: "unknownPart",
      location: "part",
      locationType: "parameter",
    });
  });

  test("an upload type Google does not have is 400, and none at all too", async () => {
    expect((await insert(metadata, {}, "uploadType=chunked&part=snippet")).status).toBe(400);
    expect((await insert(metadata, {}, "part=snippet")).status).toBe(400);
  });

  test("metadata over 1 MiB is refused without a session", async () => {
    const res = await insert({ snippet: { title: "ok", description: "x".repeat(1024 * 1024) } });
    expect(res.status).toBe(400);
    expect((await json(res)).error.message).toBe("Metadata part is too large.");
    expect(res.headers.get("location")).toBeNull();
  });

  test("past the daily uploads the insert is 403 quotaExceeded", async () => {
    for (let index = 0; index < 5; index += 1) expect((await insert(metadata)).status).toBe(200);
    const res = await insert(metadata);
    expect(res.status).toBe(403);
    expect((await json(res)).error.errors[0]).toMatchObject({
      reason: "quotaExceeded",
      domain: "youtube.quota",
    });
  });
});

describe("POST /upload/youtube/v3/videos?uploadType=resumable: security", () => {
  test("no token is 401 required; an unknown one 401 authError", async () => {
    const none = await insert(metadata, { authorization: "" });
    expect(none.status).toBe(401);
    expect((await json(none)).error.errors[0]).toMatchObject({
      reason: "required",
      location: "Authorization",
    });
    const unknown = await insert(metadata, { authorization: "Bearer ya29.made-up" });
    expect(unknown.status).toBe(401);
    expect((await json(unknown)).error).toMatchObject({
      status: "UNAUTHENTICATED",
      errors: [expect.objectContaining({ reason: "authError" })],
    });
  });

  test("an expired access token is 401 authError, and a refresh makes uploads work again", async () => {
    await fetch(`${sandbox.url}/_sandbox/reset`, { method: "POST" });
    const tokens = await googleTokens(sandbox.url, DEMO_GOOGLE.accounts.creator.id);
    await fetch(`${sandbox.url}/_sandbox/tokens/expire`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ platform: "google" }),
    });
    expect((await insert(metadata, { authorization: `Bearer ${tokens.access_token}` })).status).toBe(401);
    expect(tokens.refresh_token).toMatch(/^1\/\//);
    const refreshed = await fetch(`${sandbox.url}/token`, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams({
        grant_type: "refresh_token",
        refresh_token: tokens.refresh_token ?? "",
        client_id: DEMO_GOOGLE.clientId,
        client_secret: DEMO_GOOGLE.clientSecret,
      }),
    });
    const { access_token } = await json(refreshed);
    expect((await insert(metadata, { authorization: `Bearer ${access_token}` })).status).toBe(200);
  });

  test.for<[string[], number]>([
    [["youtube.upload"], 200],
    [["youtube"], 200],
    [["youtube.force-ssl"], 200],
    [["youtubepartner"], 200],
    [["youtube.readonly"], 403],
  ])(
    "a token granted %j may insert: %i (the discovery document's videos.insert scopes)",
    async ([scopes, status]) => {
      const res = await insert(metadata, { authorization: `Bearer ${await tokenWithScopes(scopes)}` });
      expect(res.status).toBe(status);
      if (status === 403) expect((await json(res)).error.errors[0].reason).toBe("insufficientPermissions");
    },
  );

  test("an account without a YouTube channel is 401 youtubeSignupRequired", async () => {
    const { access_token } = await googleTokens(sandbox.url, DEMO_GOOGLE.accounts.noChannel.id);
    const res = await insert(metadata, { authorization: `Bearer ${access_token}` });
    expect(res.status).toBe(401);
    expect((await json(res)).error.errors[0].reason).toBe("youtubeSignupRequired");
  });
});

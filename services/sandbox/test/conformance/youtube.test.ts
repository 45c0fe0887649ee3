import { subscribe, unsubscribe } from "node:diagnostics_channel";
import type { ClientRequest } from "node:http";
import { Readable } from "node:stream";
import { json } from "@app/testkit";
import { youtube, type youtube_v3 } from "@googleapis/youtube";
import { CodeChallengeMethod, OAuth2Client } from "google-auth-library";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { DEMO_GOOGLE } from "../../src/demo.ts";
import { GOOGLE_REDIRECT, mediaBytes, type Sandbox, startSandbox } from "../harness.ts";

// The official Google clients, unchanged (`@googleapis/youtube` 39 and `google-auth-library` 11),
// pointed at the twin: if one of them fails here, the twin is what must change.

const SCOPES = [
  "https://www.googleapis.com/auth/youtube.upload",
  "https://www.googleapis.com/auth/youtube.readonly",
];

let sandbox: Sandbox;
let oauth2: OAuth2Client;
let yt: youtube_v3.Youtube;
/** Where every outgoing HTTP request of this file went (host names), whichever library sent it. */
const hosts: string[] = [];
const onHttp = (message: unknown) => hosts.push((message as { request: ClientRequest }).request.host);
const onUndici = (message: unknown) =>
  hosts.push(new URL((message as { request: { origin: string } }).request.origin).hostname);

beforeAll(async () => {
  subscribe("http.client.request.start", onHttp);
  subscribe("undici:request:create", onUndici);
  sandbox = await startSandbox();
  oauth2 = new OAuth2Client({
    clientId: DEMO_GOOGLE.clientId,
    clientSecret: DEMO_GOOGLE.clientSecret,
    redirectUri: GOOGLE_REDIRECT,
    endpoints: {
      oauth2AuthBaseUrl: `${sandbox.url}/o/oauth2/v2/auth`,
      oauth2TokenUrl: `${sandbox.url}/token`,
    },
    // Refresh on a 401 even before the recorded expiry (the twin can expire tokens early).
    forceRefreshOnFailure: true,
  });
  // `rootUrl` moves the API calls; media uploads take their root from the method's own options.
  yt = youtube({ version: "v3", auth: oauth2, rootUrl: `${sandbox.url}/` });
});

afterAll(async () => {
  unsubscribe("http.client.request.start", onHttp);
  unsubscribe("undici:request:create", onUndici);
  await sandbox.close();
});

const uploadOptions = () => ({ rootUrl: `${sandbox.url}/` });

const unescapeHtml = (text: string) =>
  text
    .replaceAll("&quot;", '"')
    .replaceAll("&#39;", "'")
    .replaceAll("&lt;", "<")
    .replaceAll("&gt;", ">")
    .replaceAll("&amp;", "&");

/** A person on the consent page: picks the channel's account and allows; returns the redirect's query. */
async function consentAs(authUrl: string, account: string): Promise<URLSearchParams> {
  const page = await fetch(authUrl);
  expect(page.status).toBe(200);
  const html = await page.text();
  const action = /<form method="post" action="([^"]+)"/.exec(html)?.[1];
  const fields = new URLSearchParams();
  for (const [, name, value] of html.matchAll(/<input type="hidden" name="([^"]*)" value="([^"]*)">/g)) {
    fields.append(unescapeHtml(name ?? ""), unescapeHtml(value ?? ""));
  }
  fields.set("account", account);
  fields.set("decision", "allow");
  const answer = await fetch(new URL(unescapeHtml(action ?? ""), sandbox.url), {
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded" },
    body: fields.toString(),
    redirect: "manual",
  });
  expect(answer.status).toBe(302);
  const location = new URL(answer.headers.get("location") ?? "");
  expect(`${location.origin}${location.pathname}`).toBe(GOOGLE_REDIRECT);
  return location.searchParams;
}

/** A video body as a stream of pieces, as a caller reading a file hands it to the client. */
const streamOf = (bytes: Buffer) =>
  Readable.from(
    (function* () {
      for (let offset = 0; offset < bytes.length; offset += 65_536)
        yield bytes.subarray(offset, offset + 65_536);
    })(),
  );

async function sandboxVideos() {
  return (await json(await fetch(`${sandbox.url}/_sandbox/youtube/videos`))).videos as Record<
    string,
    unknown
  >[];
}

describe("google-auth-library against the Google OAuth twin", () => {
  test("authorization code with PKCE (generateCodeVerifierAsync, generateAuthUrl, getToken)", async () => {
    const { codeVerifier, codeChallenge } = await oauth2.generateCodeVerifierAsync();
    const authUrl = oauth2.generateAuthUrl({
      access_type: "offline",
      prompt: "consent",
      scope: SCOPES,
      state: "conformance-state",
      code_challenge_method: CodeChallengeMethod.S256,
      code_challenge: codeChallenge,
    });
    expect(authUrl.startsWith(`${sandbox.url}/o/oauth2/v2/auth?`)).toBe(true);
    const redirect = await consentAs(authUrl, DEMO_GOOGLE.accounts.creator.id);
    expect(redirect.get("state")).toBe("conformance-state");
    const { tokens } = await oauth2.getToken({ code: redirect.get("code") ?? "", codeVerifier });
    expect(tokens).toMatchObject({
      access_token: expect.stringMatching(/^ya29\./),
      refresh_token: expect.stringMatching(/^1\/\//),
      token_type: "Bearer",
      scope: SCOPES.join(" "),
      expiry_date: expect.any(Number),
    });
    oauth2.setCredentials(tokens);
  });

  test("a wrong verifier is refused by getToken with Google's invalid_grant", async () => {
    const { codeChallenge } = await oauth2.generateCodeVerifierAsync();
    const other = await oauth2.generateCodeVerifierAsync();
    const authUrl = oauth2.generateAuthUrl({
      access_type: "offline",
      scope: SCOPES,
      code_challenge_method: CodeChallengeMethod.S256,
      code_challenge: codeChallenge,
    });
    const redirect = await consentAs(authUrl, DEMO_GOOGLE.accounts.creator.id);
    const refused = await oauth2
      .getToken({ code: redirect.get("code") ?? "", codeVerifier: other.codeVerifier })
      .then(
        () => undefined,
        (error: { response?: { status: number; data: unknown } }) => error.response,
      );
    expect(refused?.status).toBe(400);
    expect(refused?.data).toMatchObject({ error: "invalid_grant" });
  });

  test("refresh: an expired credential is renewed with the refresh token", async () => {
    const before = oauth2.credentials.access_token;
    oauth2.setCredentials({ ...oauth2.credentials, expiry_date: 1 });
    const { token } = await oauth2.getAccessToken();
    expect(token).toMatch(/^ya29\./);
    expect(token).not.toBe(before);
    expect(oauth2.credentials.refresh_token).toMatch(/^1\/\//);
  });
});

describe("@googleapis/youtube against the YouTube twin", () => {
  let inserted: youtube_v3.Schema$Video;
  const video = mediaBytes(700_000, 11);

  test("videos.insert with a media stream: the client's default multipart upload succeeds", async () => {
    const res = await yt.videos.insert(
      {
        part: ["snippet", "status"],
        requestBody: {
          snippet: {
            title: "Official client",
            description: "Sent by @googleapis/youtube",
            tags: ["conformance"],
          },
          status: { privacyStatus: "unlisted" },
        },
        media: { mimeType: "video/mp4", body: streamOf(video.bytes) },
      },
      uploadOptions(),
    );
    expect(res.status).toBe(200);
    inserted = res.data;
    expect(inserted).toMatchObject({
      kind: "youtube#video",
      id: expect.stringMatching(/^[\w-]{11}$/),
      snippet: { title: "Official client", channelId: DEMO_GOOGLE.accounts.creator.channel.id },
      status: { privacyStatus: "unlisted", uploadStatus: "uploaded" },
    });
    expect(await sandboxVideos()).toContainEqual(
      expect.objectContaining({
        id: inserted.id,
        uploadType: "multipart",
        bytes: video.bytes.length,
        sha256: video.sha256,
      }),
    );
    const [logged] = (
      await json(await fetch(`${sandbox.url}/_sandbox/requests?operation=youtube.videos.insert`))
    ).requests;
    // The client sent multipart, streamed without a Content-Length.
    expect(logged).toMatchObject({
      query: { uploadType: "multipart", part: "snippet,status" },
      contentLength: null,
      status: 200,
    });
  });

  test("videos.insert with a media body and no metadata goes as uploadType=media", async () => {
    const small = mediaBytes(10_000, 2);
    const res = await yt.videos.insert(
      { part: ["id", "status"], media: { mimeType: "video/mp4", body: streamOf(small.bytes) } },
      uploadOptions(),
    );
    expect(res.status).toBe(200);
    expect(res.data.status?.privacyStatus).toBe("private");
    expect(await sandboxVideos()).toContainEqual(
      expect.objectContaining({ id: res.data.id, uploadType: "media", sha256: small.sha256 }),
    );
  });

  test("videos.list answers the requested parts only", async () => {
    const both = await yt.videos.list({ part: ["snippet", "status"], id: [inserted.id ?? ""] });
    expect(both.data.items).toHaveLength(1);
    expect(both.data.items?.[0]).toMatchObject({
      id: inserted.id,
      snippet: { title: "Official client", tags: ["conformance"] },
      status: { privacyStatus: "unlisted" },
    });
    const idOnly = await yt.videos.list({ part: ["id"], id: [inserted.id ?? ""] });
    expect(idOnly.data.items?.[0]).toEqual({
      kind: "youtube#video",
      etag: expect.any(String),
      id: inserted.id,
    });
  });

  test("a refusal reaches the caller in Google's error shape", async () => {
    const failure = await yt.videos
      .insert(
        {
          part: ["snippet"],
          requestBody: { snippet: { title: "<not allowed>" } },
          media: { mimeType: "video/mp4", body: streamOf(mediaBytes(100).bytes) },
        },
        uploadOptions(),
      )
      .then(
        () => undefined,
        (error: { status?: number; response?: { data: unknown } }) => error,
      );
    expect(failure?.status).toBe(400);
    expect(failure?.response?.data).toMatchObject({
      error: { code: 400, errors: [{ reason: "invalidTitle", domain: "youtube.video" }] },
    });
    const unknownPart = await yt.videos.list({ part: ["snippets"], id: [inserted.id ?? ""] }).then(
      () => undefined,
      (error: { response?: { data: { error: { errors: { reason: string }[] } } } }) => error.response?.data,
    );
    expect(unknownPart?.error.errors[0]?.reason).toBe("unknownPart");
  });

  test("a token the twin expired early is refreshed by the client on the 401, and the call retried", async () => {
    const before = oauth2.credentials.access_token;
    await fetch(`${sandbox.url}/_sandbox/tokens/expire`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ platform: "google" }),
    });
    const res = await yt.videos.list({ part: ["id"], id: [inserted.id ?? ""] });
    expect(res.data.items).toHaveLength(1);
    expect(oauth2.credentials.access_token).not.toBe(before);
  });

  test("resumable (the client has no resumable uploader): the session driven through OAuth2Client.request", async () => {
    // googleapis-common sets uploadType to multipart or media only; the resumable protocol is
    // driven here with the auth library's authenticated transport.
    const bytes = mediaBytes(300_000, 4);
    const start = await oauth2.request({
      url: `${sandbox.url}/upload/youtube/v3/videos?uploadType=resumable&part=snippet`,
      method: "POST",
      headers: {
        "content-type": "application/json; charset=UTF-8",
        "x-upload-content-type": "video/mp4",
        "x-upload-content-length": String(bytes.bytes.length),
      },
      data: { snippet: { title: "Resumable through the auth client" } },
    });
    const session = start.headers.get("location") ?? "";
    expect(new URL(session).origin).toBe(sandbox.url);
    const first = 256 * 1024;
    const partial = await oauth2.request({
      url: session,
      method: "PUT",
      headers: { "content-range": `bytes 0-${first - 1}/${bytes.bytes.length}` },
      data: bytes.bytes.subarray(0, first),
      validateStatus: (status) => status === 308,
    });
    expect(partial.headers.get("range")).toBe(`bytes=0-${first - 1}`);
    const done = await oauth2.request<youtube_v3.Schema$Video>({
      url: session,
      method: "PUT",
      headers: { "content-range": `bytes ${first}-${bytes.bytes.length - 1}/${bytes.bytes.length}` },
      data: bytes.bytes.subarray(first),
    });
    expect(done.data.snippet?.title).toBe("Resumable through the auth client");
    expect(await sandboxVideos()).toContainEqual(
      expect.objectContaining({ id: done.data.id, sha256: bytes.sha256 }),
    );
  });

  test("videos.delete: refused to the upload and read scopes, 204 with youtube.force-ssl, then videoNotFound", async () => {
    const id = inserted.id ?? "";
    const refused = await yt.videos.delete({ id }).then(
      () => undefined,
      (error: { status?: number; response?: { data: unknown } }) => error,
    );
    expect(refused?.status).toBe(403);
    expect(refused?.response?.data).toMatchObject({
      error: { code: 403, errors: [{ reason: "insufficientPermissions" }] },
    });
    const manager = new OAuth2Client({
      clientId: DEMO_GOOGLE.clientId,
      clientSecret: DEMO_GOOGLE.clientSecret,
      redirectUri: GOOGLE_REDIRECT,
      endpoints: {
        oauth2AuthBaseUrl: `${sandbox.url}/o/oauth2/v2/auth`,
        oauth2TokenUrl: `${sandbox.url}/token`,
      },
    });
    const authUrl = manager.generateAuthUrl({
      access_type: "offline",
      scope: ["https://www.googleapis.com/auth/youtube.force-ssl"],
    });
    const redirect = await consentAs(authUrl, DEMO_GOOGLE.accounts.creator.id);
    manager.setCredentials((await manager.getToken(redirect.get("code") ?? "")).tokens);
    const manage = youtube({ version: "v3", auth: manager, rootUrl: `${sandbox.url}/` });

    const deleted = await manage.videos.delete({ id });
    expect(deleted.status).toBe(204);
    expect(deleted.data).toBe("");
    expect(await sandboxVideos()).not.toContainEqual(expect.objectContaining({ id }));
    expect((await manage.videos.list({ part: ["id"], id: [id] })).data.items).toEqual([]);

    const again = await manage.videos.delete({ id }).then(
      () => undefined,
      (error: { status?: number; response?: { data: unknown } }) => error,
    );
    expect(again?.status).toBe(404);
    expect(again?.response?.data).toMatchObject({
      error: {
        code: 404,
        status: "NOT_FOUND",
        errors: [
          { reason: "videoNotFound", domain: "youtube.video", location: "id", locationType: "parameter" },
        ],
      },
    });
  });

  test("no request of this file left loopback", () => {
    expect(hosts.length).toBeGreaterThan(10);
    expect([...new Set(hosts)].filter((host) => host !== "127.0.0.1" && host !== "localhost")).toEqual([]);
  });
});

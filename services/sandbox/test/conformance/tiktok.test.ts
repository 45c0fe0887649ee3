import { createHash, randomBytes } from "node:crypto";
import { json } from "@app/testkit";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { DEMO_TIKTOK } from "../../src/demo.ts";
import {
  form,
  locationParams,
  mediaBytes,
  type Sandbox,
  startMediaHost,
  startSandbox,
  TIKTOK_REDIRECT,
} from "../harness.ts";

// TikTok has no official Node client: the judge is its documentation. Each row is a request as a
// documentation page shows it (its curl example's fields and values, where the page has one), sent
// to the twin, and the fields and error codes that page documents for the answer. The pages'
// example media URLs (tiktokcdn.com, example.verified.domain.com) are swapped for a loopback host
// that is "verified", except where the row is about an unverified one: nothing leaves loopback.

const DOCS = "https://developers.tiktok.com";
const PAGE = {
  getToken: `${DOCS}/doc/oauth-get-a-user-access-token`,
  refreshToken: `${DOCS}/docs/en/oauth-refresh-a-user-access-token`,
  revokeToken: `${DOCS}/docs/en/oauth-revoke-a-user-access-token`,
  manageTokens: `${DOCS}/docs/zh-Hans/oauth-user-access-token-management`,
  oauthErrors: `${DOCS}/doc/oauth-error-handling`,
  desktopPkce: `${DOCS}/doc/login-kit-desktop`,
  creatorInfo: `${DOCS}/doc/content-posting-api-reference-query-creator-info`,
  directPost: `${DOCS}/doc/content-posting-api-reference-direct-post`,
  upload: `${DOCS}/doc/content-posting-api-reference-upload-video`,
  photo: `${DOCS}/doc/content-posting-api-reference-photo-post`,
  status: `${DOCS}/doc/content-posting-api-reference-get-video-status`,
  mediaTransfer: `${DOCS}/doc/content-posting-api-media-transfer-guide`,
  v2Errors: `${DOCS}/doc/tiktok-api-v2-error-handling`,
} as const;

/** The fields every token answer carries (Get a User Access Token, Refresh a User Access Token). */
const TOKEN_FIELDS = [
  "open_id",
  "scope",
  "access_token",
  "expires_in",
  "refresh_token",
  "refresh_expires_in",
  "token_type",
];
/** The creator_info/query data fields (Query Creator Info, Response). */
const CREATOR_FIELDS = [
  "creator_avatar_url",
  "creator_username",
  "creator_nickname",
  "privacy_level_options",
  "comment_disabled",
  "duet_disabled",
  "stitch_disabled",
  "max_video_post_duration_sec",
];

type Request = {
  method?: string;
  path: string;
  headers?: Record<string, string>;
  form?: Record<string, string>;
  json?: unknown;
  raw?: Buffer;
};
type Expected = {
  status?: number;
  /** v2 API: `data` holds these fields and `error.code` is this code. */
  data?: string[];
  code?: string;
  /** OAuth endpoints: the answer holds these fields, or `error` is this code. */
  fields?: string[];
  oauthError?: string;
};
type Row = {
  name: string;
  page: string;
  /** What the row needs first (a token, a post), through other documented calls. */
  prepare?: () => Promise<void>;
  request: () => Request;
  expected: Expected;
  /** Further documented facts about the answer; may keep values for later rows. */
  // biome-ignore lint/suspicious/noExplicitAny: assertions inspect arbitrary JSON bodies
  andThen?: (body: any, res: Response) => void | Promise<void>;
};

let sandbox: Sandbox;
let media: Awaited<ReturnType<typeof startMediaHost>>;
const clip = mediaBytes(300_000, 21);
const state = {
  verifier: "",
  code: "",
  accessToken: "",
  refreshToken: "",
  previousRefreshToken: "",
  basicOnlyToken: "",
  fileUpload: { publishId: "", uploadUrl: "" },
  pullPublishId: "",
  photoPublishId: "",
  pngPublishId: "",
  burstToken: "",
};

const client = { client_key: DEMO_TIKTOK.clientKey, client_secret: DEMO_TIKTOK.clientSecret };
const bearer = (token: string) => ({
  authorization: `Bearer ${token}`,
  "content-type": "application/json; charset=UTF-8",
});

/** The user on TikTok's consent page: approves the app; the redirect's `code`. PKCE as Login Kit for Desktop states it: hex SHA-256. */
async function authorize(
  scopes: string[],
  openId: string = DEMO_TIKTOK.creators.public.openId,
  verifier = "",
) {
  const params = locationParams(
    await fetch(
      `${sandbox.url}/v2/auth/authorize/approve/`,
      form({
        client_key: DEMO_TIKTOK.clientKey,
        redirect_uri: TIKTOK_REDIRECT,
        response_type: "code",
        scope: scopes.join(","),
        state: "conformance",
        ...(verifier
          ? {
              code_challenge: createHash("sha256").update(verifier).digest("hex"),
              code_challenge_method: "S256",
            }
          : {}),
        decision: "allow",
        account: openId,
      }),
    ),
  );
  return params.get("code") ?? "";
}

async function accessTokenFor(scopes: string[], openId?: string): Promise<string> {
  const code = await authorize(scopes, openId);
  const res = await fetch(
    `${sandbox.url}/v2/oauth/token/`,
    form({ ...client, code, grant_type: "authorization_code", redirect_uri: TIKTOK_REDIRECT }),
  );
  return (await json(res)).access_token;
}

function send(request: Request): Promise<Response> {
  const headers: Record<string, string> = { ...request.headers };
  let body: RequestInit["body"];
  if (request.form) {
    headers["content-type"] = "application/x-www-form-urlencoded";
    body = new URLSearchParams(request.form).toString();
  } else if (request.json !== undefined) {
    body = JSON.stringify(request.json);
  } else if (request.raw) {
    body = request.raw;
  }
  const url = request.path.startsWith("http") ? request.path : `${sandbox.url}${request.path}`;
  return fetch(url, { method: request.method ?? "POST", headers, body });
}

const rows: Row[] = [
  {
    name: "token exchange: authorization code with a hex-encoded S256 PKCE verifier, form-encoded",
    page: `${PAGE.getToken} ; ${PAGE.desktopPkce} ; ${PAGE.manageTokens}`,
    prepare: async () => {
      state.verifier = randomBytes(32).toString("base64url");
      state.code = await authorize(DEMO_TIKTOK.scopes as unknown as string[], undefined, state.verifier);
    },
    request: () => ({
      path: "/v2/oauth/token/",
      headers: { "cache-control": "no-cache" },
      form: {
        ...client,
        code: state.code,
        grant_type: "authorization_code",
        redirect_uri: TIKTOK_REDIRECT,
        code_verifier: state.verifier,
      },
    }),
    expected: { status: 200, fields: TOKEN_FIELDS },
    andThen: (body) => {
      // Manage OAuth Access Tokens: access 2 hours, refresh 180 days, in seconds.
      expect(body).toMatchObject({ expires_in: 7200, refresh_expires_in: 15_552_000, token_type: "Bearer" });
      expect(body.scope.split(",").sort()).toEqual([...DEMO_TIKTOK.scopes].sort());
      state.accessToken = body.access_token;
      state.refreshToken = body.refresh_token;
    },
  },
  {
    name: "token exchange: the code a second time is invalid_grant",
    page: `${PAGE.oauthErrors}`,
    request: () => ({
      path: "/v2/oauth/token/",
      form: {
        ...client,
        code: state.code,
        grant_type: "authorization_code",
        redirect_uri: TIKTOK_REDIRECT,
        code_verifier: state.verifier,
      },
    }),
    expected: { oauthError: "invalid_grant" },
  },
  {
    name: "token exchange: an unknown client is invalid_client",
    page: `${PAGE.oauthErrors}`,
    request: () => ({
      path: "/v2/oauth/token/",
      form: {
        client_key: DEMO_TIKTOK.clientKey,
        client_secret: "wrong",
        grant_type: "refresh_token",
        refresh_token: state.refreshToken,
      },
    }),
    expected: { oauthError: "invalid_client" },
  },
  {
    name: "refresh: a new access token and a new refresh token in place of the one sent",
    page: PAGE.refreshToken,
    request: () => ({
      path: "/v2/oauth/token/",
      headers: { "cache-control": "no-cache" },
      form: { ...client, grant_type: "refresh_token", refresh_token: state.refreshToken },
    }),
    expected: { status: 200, fields: TOKEN_FIELDS },
    andThen: (body) => {
      expect(body.refresh_token).not.toBe(state.refreshToken);
      expect(body.access_token).not.toBe(state.accessToken);
      state.previousRefreshToken = state.refreshToken;
      state.refreshToken = body.refresh_token;
      state.accessToken = body.access_token;
    },
  },
  {
    name: "refresh: the previous refresh token stops working once a new one is issued",
    page: `${PAGE.refreshToken} ; ${PAGE.oauthErrors}`,
    request: () => ({
      path: "/v2/oauth/token/",
      form: { ...client, grant_type: "refresh_token", refresh_token: state.previousRefreshToken },
    }),
    expected: { oauthError: "invalid_grant" },
  },
  {
    name: "creator_info/query: the curl example (a bearer token, no body)",
    page: PAGE.creatorInfo,
    request: () => ({ path: "/v2/post/publish/creator_info/query/", headers: bearer(state.accessToken) }),
    expected: { status: 200, data: CREATOR_FIELDS, code: "ok" },
    andThen: (body) => {
      expect(body.data.privacy_level_options).toEqual(expect.arrayContaining(["SELF_ONLY"]));
      expect(typeof body.data.max_video_post_duration_sec).toBe("number");
    },
  },
  {
    name: "creator_info/query: no token is 401 access_token_invalid",
    page: `${PAGE.creatorInfo} ; ${PAGE.v2Errors}`,
    request: () => ({
      path: "/v2/post/publish/creator_info/query/",
      headers: { "content-type": "application/json; charset=UTF-8" },
    }),
    expected: { status: 401, code: "access_token_invalid" },
  },
  {
    name: "creator_info/query: a token without video.publish is 401 scope_not_authorized",
    page: `${PAGE.creatorInfo} ; ${PAGE.v2Errors}`,
    prepare: async () => {
      state.basicOnlyToken = await accessTokenFor(["user.info.basic"]);
    },
    request: () => ({ path: "/v2/post/publish/creator_info/query/", headers: bearer(state.basicOnlyToken) }),
    expected: { status: 401, code: "scope_not_authorized" },
  },
  {
    name: "creator_info/query: the 21st query of a token within a minute is 429 rate_limit_exceeded",
    page: `${PAGE.creatorInfo} ("Each user access_token is limited to 20 requests per minute") ; ${PAGE.v2Errors}`,
    prepare: async () => {
      state.burstToken = await accessTokenFor(["video.publish"]);
      for (let index = 0; index < 20; index += 1) {
        expect(
          (await send({ path: "/v2/post/publish/creator_info/query/", headers: bearer(state.burstToken) }))
            .status,
        ).toBe(200);
      }
    },
    request: () => ({ path: "/v2/post/publish/creator_info/query/", headers: bearer(state.burstToken) }),
    expected: { status: 429, code: "rate_limit_exceeded" },
  },
  {
    name: "video init, FILE_UPLOAD: the page's example body (50000123 bytes in 5 chunks of 10000000)",
    page: `${PAGE.directPost} ; ${PAGE.mediaTransfer}`,
    request: () => ({
      path: "/v2/post/publish/video/init/",
      headers: bearer(state.accessToken),
      json: {
        post_info: {
          title: "this will be a funny #cat video on your @tiktok #fyp",
          privacy_level: "MUTUAL_FOLLOW_FRIENDS",
          disable_duet: false,
          disable_comment: true,
          disable_stitch: false,
          video_cover_timestamp_ms: 1000,
        },
        source_info: {
          source: "FILE_UPLOAD",
          video_size: 50_000_123,
          chunk_size: 10_000_000,
          total_chunk_count: 5,
        },
      },
    }),
    expected: { status: 200, data: ["publish_id", "upload_url"], code: "ok" },
    andThen: (body) => {
      expect(body.data.publish_id).toMatch(/^v_pub_file~v2/);
      state.fileUpload = { publishId: body.data.publish_id, uploadUrl: body.data.upload_url };
    },
  },
  {
    name: "upload: the first chunk, bytes 0-9999999/50000123, is 206 (chunks remain)",
    page: PAGE.mediaTransfer,
    request: () => ({
      method: "PUT",
      path: state.fileUpload.uploadUrl,
      headers: { "content-type": "video/mp4", "content-range": "bytes 0-9999999/50000123" },
      raw: Buffer.alloc(10_000_000, 7),
    }),
    expected: { status: 206 },
  },
  {
    name: "status fetch: the file upload is PROCESSING_UPLOAD with the bytes uploaded so far",
    page: PAGE.status,
    request: () => ({
      path: "/v2/post/publish/status/fetch/",
      headers: bearer(state.accessToken),
      json: { publish_id: state.fileUpload.publishId },
    }),
    expected: { status: 200, data: ["status", "uploaded_bytes"], code: "ok" },
    andThen: (body) =>
      expect(body.data).toMatchObject({ status: "PROCESSING_UPLOAD", uploaded_bytes: 10_000_000 }),
  },
  {
    name: "video init, PULL_FROM_URL: the page's example URL, whose domain the app has not verified, is 403 url_ownership_unverified",
    page: PAGE.directPost,
    request: () => ({
      path: "/v2/post/publish/video/init/",
      headers: bearer(state.accessToken),
      json: {
        post_info: {
          title: "this will be a funny #cat video on your @tiktok #fyp",
          privacy_level: "MUTUAL_FOLLOW_FRIENDS",
        },
        source_info: {
          source: "PULL_FROM_URL",
          video_url: "https://example.verified.domain.com/example_video.mp4",
        },
      },
    }),
    expected: { status: 403, code: "url_ownership_unverified" },
  },
  {
    name: "video init, PULL_FROM_URL from a verified prefix: a publish_id and no upload_url",
    page: PAGE.directPost,
    request: () => ({
      path: "/v2/post/publish/video/init/",
      headers: bearer(state.accessToken),
      json: {
        post_info: {
          title: "this will be a funny #cat video on your @tiktok #fyp",
          privacy_level: "MUTUAL_FOLLOW_FRIENDS",
          disable_duet: false,
          disable_comment: true,
          disable_stitch: false,
          video_cover_timestamp_ms: 1000,
        },
        source_info: { source: "PULL_FROM_URL", video_url: `${media.url}/verified/example_video.mp4` },
      },
    }),
    expected: { status: 200, data: ["publish_id"], code: "ok" },
    andThen: (body) => {
      expect(body.data.upload_url).toBeUndefined();
      state.pullPublishId = body.data.publish_id;
    },
  },
  {
    name: "status fetch: a pulled video is PROCESSING_DOWNLOAD with downloaded_bytes",
    page: PAGE.status,
    request: () => ({
      path: "/v2/post/publish/status/fetch/",
      headers: bearer(state.accessToken),
      json: { publish_id: state.pullPublishId },
    }),
    expected: { status: 200, data: ["status", "downloaded_bytes"], code: "ok" },
    andThen: (body) =>
      expect(body.data).toMatchObject({ status: "PROCESSING_DOWNLOAD", downloaded_bytes: clip.bytes.length }),
  },
  {
    name: "status fetch: then PUBLISH_COMPLETE with publicaly_available_post_id (the page's spelling)",
    page: PAGE.status,
    request: () => ({
      path: "/v2/post/publish/status/fetch/",
      headers: bearer(state.accessToken),
      json: { publish_id: state.pullPublishId },
    }),
    expected: { status: 200, data: ["status", "publicaly_available_post_id"], code: "ok" },
    andThen: (body) => {
      expect(body.data.status).toBe("PUBLISH_COMPLETE");
      expect(body.data.publicaly_available_post_id).toEqual([expect.stringMatching(/^\d+$/)]);
    },
  },
  {
    name: "content init, photo: the page's example body (DIRECT_POST, two WEBP images, cover index 1)",
    page: PAGE.photo,
    request: () => ({
      path: "/v2/post/publish/content/init/",
      headers: bearer(state.accessToken),
      json: {
        post_info: {
          title: "funny cat",
          description: "this will be a #funny photo on your @tiktok #fyp",
          disable_comment: true,
          privacy_level: "PUBLIC_TO_EVERYONE",
          auto_add_music: true,
        },
        source_info: {
          source: "PULL_FROM_URL",
          photo_cover_index: 1,
          photo_images: [
            `${media.url}/verified/example-image-01.webp`,
            `${media.url}/verified/example-image-02.webp`,
          ],
        },
        post_mode: "DIRECT_POST",
        media_type: "PHOTO",
      },
    }),
    expected: { status: 200, data: ["publish_id"], code: "ok" },
    andThen: (body) => {
      expect(body.data.publish_id).toMatch(/^p_pub_url~v2/);
      state.photoPublishId = body.data.publish_id;
    },
  },
  {
    name: "content init, photo: a photo from an unverified URL is 403 url_ownership_unverified",
    page: PAGE.photo,
    request: () => ({
      path: "/v2/post/publish/content/init/",
      headers: bearer(state.accessToken),
      json: {
        post_info: { title: "funny cat", privacy_level: "PUBLIC_TO_EVERYONE" },
        source_info: {
          source: "PULL_FROM_URL",
          photo_images: ["https://tiktokcdn.com/obj/example-image-01.webp"],
        },
        post_mode: "DIRECT_POST",
        media_type: "PHOTO",
      },
    }),
    expected: { status: 403, code: "url_ownership_unverified" },
  },
  {
    name: "content init, photo: a PNG (photos are JPEG or WEBP) ends FAILED with file_format_check_failed",
    page: `${PAGE.photo} ; ${PAGE.status}`,
    prepare: async () => {
      const res = await send({
        path: "/v2/post/publish/content/init/",
        headers: bearer(state.accessToken),
        json: {
          post_info: { title: "png", privacy_level: "SELF_ONLY" },
          source_info: { source: "PULL_FROM_URL", photo_images: [`${media.url}/verified/image.png`] },
          post_mode: "DIRECT_POST",
          media_type: "PHOTO",
        },
      });
      state.pngPublishId = (await json(res)).data.publish_id;
    },
    request: () => ({
      path: "/v2/post/publish/status/fetch/",
      headers: bearer(state.accessToken),
      json: { publish_id: state.pngPublishId },
    }),
    expected: { status: 200, data: ["status", "fail_reason"], code: "ok" },
    andThen: (body) =>
      expect(body.data).toMatchObject({ status: "FAILED", fail_reason: "file_format_check_failed" }),
  },
  {
    name: "inbox video init (MEDIA_UPLOAD): source_info only, a whole file under 5 MB as one chunk",
    page: `${PAGE.upload} ; ${PAGE.mediaTransfer}`,
    prepare: async () => {
      state.accessToken = await accessTokenFor(["video.upload"]);
    },
    request: () => ({
      path: "/v2/post/publish/inbox/video/init/",
      headers: bearer(state.accessToken),
      json: {
        source_info: {
          source: "FILE_UPLOAD",
          video_size: 300_000,
          chunk_size: 300_000,
          total_chunk_count: 1,
        },
      },
    }),
    expected: { status: 200, data: ["publish_id", "upload_url"], code: "ok" },
  },
  {
    name: "video init: a privacy level the creator does not offer is privacy_level_option_mismatch",
    page: PAGE.directPost,
    prepare: async () => {
      state.accessToken = await accessTokenFor(["video.publish"], DEMO_TIKTOK.creators.private.openId);
    },
    request: () => ({
      path: "/v2/post/publish/video/init/",
      headers: bearer(state.accessToken),
      json: {
        post_info: { title: "private creator", privacy_level: "PUBLIC_TO_EVERYONE" },
        source_info: {
          source: "FILE_UPLOAD",
          video_size: 300_000,
          chunk_size: 300_000,
          total_chunk_count: 1,
        },
      },
    }),
    expected: { code: "privacy_level_option_mismatch" },
  },
  {
    name: "video init: a chunk plan that does not add up is 400 invalid_params",
    page: `${PAGE.mediaTransfer} ; ${PAGE.v2Errors}`,
    request: () => ({
      path: "/v2/post/publish/video/init/",
      headers: bearer(state.accessToken),
      json: {
        post_info: { title: "bad plan", privacy_level: "SELF_ONLY" },
        source_info: {
          source: "FILE_UPLOAD",
          video_size: 50_000_123,
          chunk_size: 10_000_000,
          total_chunk_count: 6,
        },
      },
    }),
    expected: { status: 400, code: "invalid_params" },
  },
  {
    name: "video init: the 7th init of a token within a minute is 429 rate_limit_exceeded",
    page: `${PAGE.directPost} ("Each user access_token is limited to 6 requests per minute") ; ${PAGE.v2Errors}`,
    prepare: async () => {
      state.burstToken = await accessTokenFor(["video.publish"]);
      for (let index = 0; index < 6; index += 1) {
        await send({ path: "/v2/post/publish/video/init/", headers: bearer(state.burstToken), json: {} });
      }
    },
    request: () => ({ path: "/v2/post/publish/video/init/", headers: bearer(state.burstToken), json: {} }),
    expected: { status: 429, code: "rate_limit_exceeded" },
  },
  {
    name: "revoke: client credentials and the access token; an empty answer, then the token is refused",
    page: PAGE.revokeToken,
    request: () => ({
      path: "/v2/oauth/revoke/",
      headers: { "cache-control": "no-cache" },
      form: { ...client, token: state.accessToken },
    }),
    expected: { status: 200, fields: [] },
    andThen: async (body) => {
      expect(body).toEqual({});
      const after = await send({
        path: "/v2/post/publish/creator_info/query/",
        headers: bearer(state.accessToken),
      });
      expect(after.status).toBe(401);
      expect((await json(after)).error.code).toBe("access_token_invalid");
    },
  },
  {
    name: "any /v2 error, even on a path TikTok does not have, is the envelope {data, error: {code, message, log_id}}",
    page: PAGE.v2Errors,
    request: () => ({
      path: "/v2/post/publish/no/such/endpoint/",
      headers: bearer(state.accessToken),
      json: {},
    }),
    expected: { status: 404, code: "invalid_params" },
  },
];

beforeAll(async () => {
  sandbox = await startSandbox();
  media = await startMediaHost({
    "/verified/example_video.mp4": { type: "video/mp4", bytes: clip.bytes },
    "/verified/example-image-01.webp": { type: "image/webp", bytes: mediaBytes(2000, 1).bytes },
    "/verified/example-image-02.webp": { type: "image/webp", bytes: mediaBytes(3000, 2).bytes },
    "/verified/image.png": { type: "image/png", bytes: mediaBytes(1000, 3).bytes },
  });
  await fetch(`${sandbox.url}/_sandbox/settings`, {
    method: "PATCH",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ tiktokVerifiedUrlPrefixes: [`${media.url}/verified/`], tiktokProcessingPolls: 1 }),
  });
});
afterAll(async () => {
  await media.close();
  await sandbox.close();
});

describe("TikTok's documentation, example by example, against the twin", () => {
  test.for(rows.map((row) => [row.name, row] as const))("%s", async ([, row]) => {
    await row.prepare?.();
    const res = await send(row.request());
    const text = await res.text();
    const body = text === "" ? undefined : JSON.parse(text);
    const { expected } = row;
    if (expected.status !== undefined) expect(res.status, row.page).toBe(expected.status);
    if (expected.code !== undefined) {
      expect(body, row.page).toMatchObject({
        data: expect.any(Object),
        error: { code: expected.code, message: expect.any(String), log_id: expect.any(String) },
      });
      for (const field of expected.data ?? [])
        expect(body.data, `${row.page}: data.${field}`).toHaveProperty(field);
    }
    if (expected.fields !== undefined) {
      for (const field of expected.fields) expect(body, `${row.page}: ${field}`).toHaveProperty(field);
    }
    if (expected.oauthError !== undefined) {
      expect(res.status, row.page).toBeGreaterThanOrEqual(400);
      expect(body, row.page).toEqual({
        error: expected.oauthError,
        error_description: expect.any(String),
        log_id: expect.any(String),
      });
    }
    await row.andThen?.(body, res);
  });
});

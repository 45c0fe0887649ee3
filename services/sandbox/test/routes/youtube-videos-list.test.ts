import { json } from "@app/testkit";
import { afterAll, beforeAll, beforeEach, describe, expect, test } from "vitest";
import { DEMO_GOOGLE } from "../../src/demo.ts";
import { form, GOOGLE_REDIRECT, locationParams, mediaBytes, type Sandbox, startSandbox } from "../harness.ts";

const SCOPE = "https://www.googleapis.com/auth/";
let sandbox: Sandbox;
let token: string;
let videoId: string;

/** A Google access token for an account, granted exactly `scopes`. */
async function tokenWithScopes(scopes: string[], account: string = DEMO_GOOGLE.accounts.creator.id) {
  const redirect = locationParams(
    await fetch(
      `${sandbox.url}/o/oauth2/v2/auth/approve`,
      form({
        client_id: DEMO_GOOGLE.clientId,
        redirect_uri: GOOGLE_REDIRECT,
        response_type: "code",
        scope: scopes.map((scope) => SCOPE + scope).join(" "),
        decision: "allow",
        account,
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
  return (await json(res)).access_token as string;
}

beforeAll(async () => {
  sandbox = await startSandbox();
});
afterAll(() => sandbox.close());
beforeEach(async () => {
  await fetch(`${sandbox.url}/_sandbox/reset`, { method: "POST" });
  token = await tokenWithScopes(["youtube.upload", "youtube.readonly"]);
  const res = await fetch(`${sandbox.url}/upload/youtube/v3/videos?uploadType=media&part=id`, {
    method: "POST",
    headers: { authorization: `Bearer ${token}`, "content-type": "video/mp4" },
    body: mediaBytes(1000).bytes,
  });
  videoId = (await json(res)).id;
});

const list = (query: string, bearer = token) =>
  fetch(`${sandbox.url}/youtube/v3/videos?${query}`, { headers: { authorization: `Bearer ${bearer}` } });

describe("GET /youtube/v3/videos: success", () => {
  test.for<[string, string[], string[]]>([
    ["snippet", ["snippet"], ["status", "statistics", "player"]],
    ["status", ["status"], ["snippet", "statistics", "player"]],
    ["id", [], ["snippet", "status", "statistics", "player"]],
    ["snippet,statistics", ["snippet", "statistics"], ["status", "player"]],
    ["player,status", ["player", "status"], ["snippet", "statistics"]],
  ])("part=%s answers those parts only", async ([part, present, absent]) => {
    const res = await list(`part=${part}&id=${videoId}`);
    expect(res.status).toBe(200);
    const body = await json(res);
    expect(body).toMatchObject({ kind: "youtube#videoListResponse", pageInfo: { totalResults: 1 } });
    const [video] = body.items;
    expect(video).toMatchObject({ kind: "youtube#video", id: videoId, etag: expect.any(String) });
    for (const name of present) expect(video[name]).toBeDefined();
    for (const name of absent) expect(video[name]).toBeUndefined();
  });

  test("part may repeat, and ids not the caller's are left out", async () => {
    const res = await list(`part=snippet&part=status&id=${videoId},nosuchvideo`);
    const body = await json(res);
    expect(body.items).toHaveLength(1);
    expect(body.items[0].snippet.channelId).toBe(DEMO_GOOGLE.accounts.creator.channel.id);
    expect(body.items[0].status.privacyStatus).toBe("private");
  });
});

describe("GET /youtube/v3/videos: errors", () => {
  test("an unknown part is 400 unknownPart naming it", async () => {
    const res = await list(`part=snippet,statistic&id=${videoId}`);
    expect(res.status).toBe(400);
    expect((await json(res)).error).toMatchObject({
      code: 400,
      message: "'statistic'",
      errors: [
        { reason: "unknownPart", domain: "youtube.part", location: "part", locationType: "parameter" },
      ],
    });
  });

  test("no part is 400 required", async () => {
    const res = await list(`id=${videoId}`);
    expect(res.status).toBe(400);
    expect((await json(res)).error.errors[0]).toMatchObject({
      reason: "required",
      message: "Required parameter: part",
    });
  });

  test("no filter is 400 missingRequiredParameter", async () => {
    const res = await list("part=snippet");
    expect(res.status).toBe(400);
    expect((await json(res)).error.errors[0].reason).toBe("missingRequiredParameter");
  });
});

describe("GET /youtube/v3/videos: security", () => {
  test.for<[string[], number]>([
    [["youtube.upload"], 403],
    [["youtube.readonly"], 200],
    [["youtube"], 200],
    [["youtube.force-ssl"], 200],
    [["youtubepartner"], 200],
  ])(
    "a token granted %j may list: %i (the discovery document's videos.list scopes)",
    async ([scopes, status]) => {
      const res = await list(`part=id&id=${videoId}`, await tokenWithScopes(scopes));
      expect(res.status).toBe(status);
      if (status === 403) expect((await json(res)).error.errors[0].reason).toBe("insufficientPermissions");
    },
  );

  test("channels.list honours part and takes youtubepartner-channel-audit but not youtube.upload", async () => {
    const channels = (query: string, bearer: string) =>
      fetch(`${sandbox.url}/youtube/v3/channels?${query}`, {
        headers: { authorization: `Bearer ${bearer}` },
      });
    const idOnly = await json(await channels("part=id&mine=true", token));
    expect(idOnly.items).toEqual([{ kind: "youtube#channel", id: DEMO_GOOGLE.accounts.creator.channel.id }]);
    const audit = await tokenWithScopes(["youtubepartner-channel-audit"]);
    expect((await channels("part=snippet&mine=true", audit)).status).toBe(200);
    const uploadOnly = await tokenWithScopes(["youtube.upload"]);
    expect((await channels("part=snippet&mine=true", uploadOnly)).status).toBe(403);
  });
});

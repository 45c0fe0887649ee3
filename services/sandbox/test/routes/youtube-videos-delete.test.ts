import { json } from "@app/testkit";
import { afterAll, beforeAll, beforeEach, describe, expect, test } from "vitest";
import { DEMO_GOOGLE } from "../../src/demo.ts";
import { form, GOOGLE_REDIRECT, locationParams, mediaBytes, type Sandbox, startSandbox } from "../harness.ts";

const SCOPE = "https://www.googleapis.com/auth/";
let sandbox: Sandbox;
/** A token of the creator's account that may upload and delete. */
let manager: string;
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

/** videos.delete of `id` (none when undefined) with `bearer` (no Authorization header when null). */
const remove = (id: string | undefined, bearer: string | null = manager) =>
  fetch(`${sandbox.url}/youtube/v3/videos${id === undefined ? "" : `?id=${encodeURIComponent(id)}`}`, {
    method: "DELETE",
    headers: bearer === null ? {} : { authorization: `Bearer ${bearer}` },
  });

const sandboxVideoIds = async () =>
  ((await json(await fetch(`${sandbox.url}/_sandbox/youtube/videos`))).videos as { id: string }[]).map(
    (video) => video.id,
  );

beforeAll(async () => {
  sandbox = await startSandbox();
});
afterAll(() => sandbox.close());
beforeEach(async () => {
  await fetch(`${sandbox.url}/_sandbox/reset`, { method: "POST" });
  manager = await tokenWithScopes(["youtube.upload", "youtube.force-ssl"]);
  const res = await fetch(`${sandbox.url}/upload/youtube/v3/videos?uploadType=media&part=id`, {
    method: "POST",
    headers: { authorization: `Bearer ${manager}`, "content-type": "video/mp4" },
    body: mediaBytes(1000).bytes,
  });
  videoId = (await json(res)).id;
});

describe("DELETE /youtube/v3/videos: success", () => {
  test("the caller's video is deleted: 204 without a body, and neither videos.list nor the twin has it any more", async () => {
    const res = await remove(videoId);
    expect(res.status).toBe(204);
    expect(await res.text()).toBe("");
    expect(await sandboxVideoIds()).not.toContain(videoId);
    const listed = await fetch(`${sandbox.url}/youtube/v3/videos?part=id&id=${videoId}`, {
      headers: { authorization: `Bearer ${manager}` },
    });
    expect((await json(listed)).items).toEqual([]);
  });

  test.for([["youtube"], ["youtube.force-ssl"], ["youtubepartner"]])(
    "the scope %s may delete",
    async (scopes) => {
      expect((await remove(videoId, await tokenWithScopes(scopes))).status).toBe(204);
    },
  );
});

describe("DELETE /youtube/v3/videos: errors", () => {
  test("an id YouTube does not hold, or one already deleted, is 404 videoNotFound naming the id parameter", async () => {
    expect((await remove(videoId)).status).toBe(204);
    for (const id of [videoId, "nosuchvideo"]) {
      const res = await remove(id);
      expect(res.status).toBe(404);
      expect(await json(res)).toEqual({
        error: {
          code: 404,
          message:
            "The video that you are trying to delete cannot be found. Check the value of the id parameter in the request to ensure that it is correct.",
          errors: [
            {
              message:
                "The video that you are trying to delete cannot be found. Check the value of the id parameter in the request to ensure that it is correct.",
              domain: "youtube.video",
              reason: "videoNotFound",
              location: "id",
              locationType: "parameter",
            },
          ],
          status: "NOT_FOUND",
        },
      });
    }
  });

  test("without an id it is 400 required, naming the id parameter", async () => {
    const res = await remove(undefined);
    expect(res.status).toBe(400);
    expect((await json(res)).error.errors).toEqual([
      {
        message: "Required parameter: id",
        domain: "global",
        reason: "required",
        location: "id",
        locationType: "parameter",
      },
    ]);
  });
});

describe("DELETE /youtube/v3/videos: security", () => {
  test("without a token it is 401 required; with an expired one 401 authError", async () => {
    const anonymous = await remove(videoId, null);
    expect(anonymous.status).toBe(401);
    expect((await json(anonymous)).error.errors[0]).toMatchObject({ reason: "required" });
    await fetch(`${sandbox.url}/_sandbox/tokens/expire`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ platform: "google" }),
    });
    const expired = await remove(videoId);
    expect(expired.status).toBe(401);
    expect((await json(expired)).error.errors[0]).toMatchObject({ reason: "authError" });
    expect(await sandboxVideoIds()).toContain(videoId);
  });

  test.for([["youtube.upload"], ["youtube.readonly"], ["youtube.upload", "youtube.readonly"]])(
    "the scopes %s may not delete: 403 insufficientPermissions, the video stays",
    async (scopes) => {
      const res = await remove(videoId, await tokenWithScopes(scopes));
      expect(res.status).toBe(403);
      expect((await json(res)).error.errors[0]).toMatchObject({ reason: "insufficientPermissions" });
      expect(await sandboxVideoIds()).toContain(videoId);
    },
  );

  test("another account's video is 403 forbidden and stays", async () => {
    const stranger = await tokenWithScopes(["youtube.force-ssl"], DEMO_GOOGLE.accounts.noChannel.id);
    const res = await remove(videoId, stranger);
    expect(res.status).toBe(403);
    expect((await json(res)).error).toMatchObject({
      code: 403,
      status: "PERMISSION_DENIED",
      errors: [
        {
          reason: "forbidden",
          message:
            "The video that you are trying to delete cannot be deleted. The request might not be properly authorized.",
        },
      ],
    });
    expect(await sandboxVideoIds()).toContain(videoId);
  });
});

import { json } from "@app/testkit";
import { afterAll, beforeAll, beforeEach, describe, expect, test } from "vitest";
import { DEMO_TIKTOK } from "../../src/demo.ts";
import { mediaBytes, postJson, type Sandbox, startSandbox, tiktokTokens } from "../harness.ts";

let sandbox: Sandbox;
let token: string;
beforeAll(async () => {
  sandbox = await startSandbox();
});
afterAll(() => sandbox.close());
beforeEach(async () => {
  await fetch(`${sandbox.url}/_sandbox/reset`, { method: "POST" });
  token = (await tiktokTokens(sandbox.url)).access_token;
});

const settings = (patch: Record<string, unknown>) =>
  fetch(`${sandbox.url}/_sandbox/settings`, {
    method: "PATCH",
    headers: { "content-type": "application/json" },
    body: JSON.stringify(patch),
  });
const status = async (publishId: string, as = token) =>
  json(await fetch(`${sandbox.url}/v2/post/publish/status/fetch/`, postJson({ publish_id: publishId }, as)));

async function uploadedPost(path = "/v2/post/publish/video/init/"): Promise<string> {
  const { bytes } = mediaBytes(2000);
  const body = {
    post_info: { title: "t", privacy_level: "SELF_ONLY" },
    source_info: { source: "FILE_UPLOAD", video_size: 2000, chunk_size: 2000, total_chunk_count: 1 },
  };
  const { data } = await json(await fetch(`${sandbox.url}${path}`, postJson(body, token)));
  const before = await status(data.publish_id);
  expect(before.data.status).toBe("PROCESSING_UPLOAD");
  await fetch(data.upload_url, {
    method: "PUT",
    headers: { "content-type": "video/mp4", "content-range": "bytes 0-1999/2000" },
    body: bytes,
  });
  return data.publish_id;
}

describe("POST /v2/post/publish/status/fetch/: success", () => {
  test("a direct post goes PROCESSING_UPLOAD, then PUBLISH_COMPLETE with its public id", async () => {
    const publishId = await uploadedPost();
    const processing = await status(publishId);
    expect(processing.data).toMatchObject({ status: "PROCESSING_UPLOAD", uploaded_bytes: 2000 });
    const done = await status(publishId);
    expect(done.data).toMatchObject({
      status: "PUBLISH_COMPLETE",
      publicaly_available_post_id: [expect.stringMatching(/^\d+$/)],
    });
    expect((await status(publishId)).data.publicaly_available_post_id).toEqual(
      done.data.publicaly_available_post_id,
    );
  });

  test("an inbox upload ends in SEND_TO_USER_INBOX", async () => {
    await settings({ tiktokProcessingPolls: 0 });
    const publishId = await uploadedPost("/v2/post/publish/inbox/video/init/");
    expect((await status(publishId)).data.status).toBe("SEND_TO_USER_INBOX");
    await settings({ tiktokProcessingPolls: 1 });
  });
});

describe("POST /v2/post/publish/status/fetch/: errors", () => {
  test("with the outcome set to fail, the post ends FAILED with the fail_reason", async () => {
    await settings({
      tiktokOutcome: "fail",
      tiktokFailReason: "duration_check_failed",
      tiktokProcessingPolls: 0,
    });
    const publishId = await uploadedPost();
    expect((await status(publishId)).data).toMatchObject({
      status: "FAILED",
      fail_reason: "duration_check_failed",
    });
    await settings({ tiktokOutcome: "complete", tiktokProcessingPolls: 1 });
  });

  test("with the outcome set to stuck, the post stays processing however often it is polled", async () => {
    await settings({ tiktokOutcome: "stuck", tiktokProcessingPolls: 0 });
    const publishId = await uploadedPost();
    for (let index = 0; index < 5; index += 1)
      expect((await status(publishId)).data.status).toBe("PROCESSING_UPLOAD");
    await settings({ tiktokOutcome: "complete", tiktokProcessingPolls: 1 });
  });

  test("an unknown publish_id is invalid_params", async () => {
    const res = await fetch(
      `${sandbox.url}/v2/post/publish/status/fetch/`,
      postJson({ publish_id: "v_pub_file~v2-1.1" }, token),
    );
    expect(res.status).toBe(400);
    expect((await json(res)).error.code).toBe("invalid_params");
  });
});

describe("POST /v2/post/publish/status/fetch/: security", () => {
  test("another creator cannot read a post's status", async () => {
    const publishId = await uploadedPost();
    const other = await tiktokTokens(sandbox.url, DEMO_TIKTOK.creators.private.openId);
    expect((await status(publishId, other.access_token)).error.code).toBe("invalid_params");
  });
});

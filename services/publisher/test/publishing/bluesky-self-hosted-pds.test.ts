import { DEMO_BLUESKY_SELF_HOSTED } from "@app/sandbox/demo";
import { test } from "@app/testkit";
import { AtpAgent } from "@atproto/api";
import { describe, expect } from "vitest";
import { connectBluesky } from "../../src/connections/connect-flows.ts";
import { sandboxAdapters, sandboxIdentity } from "../../src/demo.ts";
import { createAccount } from "../../src/store/accounts.ts";
import { content, insertPost, sandboxBluesky, testSealer, usePlatformTwins } from "../publishing-support.ts";

const twins = usePlatformTwins();

describe("a Bluesky account on its own PDS", () => {
  test("is found through its DID document, connects there and publishes there", async ({ db }) => {
    const { sandbox } = twins;
    const account = await createAccount(db, { name: "self-hosted" });
    const adapters = sandboxAdapters(sandbox.url);
    const connection = await connectBluesky(
      {
        db,
        clock: { now: () => new Date() },
        sealer: testSealer(),
        adapters,
        publicUrl: "http://127.0.0.1:3002",
        blueskyIdentity: sandboxIdentity(sandbox.url, sandboxBluesky(sandbox.url), adapters),
      },
      {
        accountId: account.id,
        handle: DEMO_BLUESKY_SELF_HOSTED.handle,
        appPassword: DEMO_BLUESKY_SELF_HOSTED.appPassword,
      },
    );
    expect(connection.account_id).toBe(DEMO_BLUESKY_SELF_HOSTED.did);

    const postId = await insertPost(db, {
      accountId: account.id,
      connections: [{ id: connection.id, platform: "bluesky" }],
      content: content({ caption: "from a self-hosted PDS #selfhosted" }),
    });
    const publishing = twins.publishing(db);
    // The session is kept with the account's PDS, where it refreshes and publishes.
    expect((await publishing.vault.open(connection.id)).secrets.service).toBe(sandbox.pds2Url);
    const [outcome] = await publishing.publishNow(postId, 20_000);
    expect(outcome?.status).toBe("published");

    // Read back with the official client at the second PDS.
    const uri = String(outcome?.platformPostId);
    const rkey = uri.split("/").at(-1) as string;
    const record = await new AtpAgent({ service: sandbox.pds2Url }).com.atproto.repo.getRecord({
      repo: DEMO_BLUESKY_SELF_HOSTED.did,
      collection: "app.bsky.feed.post",
      rkey,
    });
    expect(record.data.value).toMatchObject({
      text: "from a self-hosted PDS #selfhosted",
      facets: [{ features: [{ $type: "app.bsky.richtext.facet#tag", tag: "selfhosted" }] }],
    });
  });
});

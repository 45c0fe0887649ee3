import { test } from "@app/testkit";
import { describe, expect } from "vitest";
import { content, insertPost, mediaFile, seedDemo, usePlatformTwins } from "../publishing-support.ts";

const twins = usePlatformTwins((settings, storage) => {
  settings.tiktok.verifiedUrlPrefixes = [`${storage.url}/media/`];
});

describe("publish-now's outcomes", () => {
  test("come in the order the request named the connections, whatever the targets' ids", async ({ db }) => {
    const demo = await seedDemo(db, twins.sandbox.url);
    const publishing = twins.publishing(db);
    const video = twins.storage.put("order.mp4", mediaFile("mp4", 200_000, 5).bytes, "video/mp4");
    const { youtube, tiktok, bluesky } = demo.connections;
    const orders = [
      [bluesky, youtube],
      [youtube, bluesky],
      [bluesky, youtube],
      [youtube, bluesky],
      [bluesky, youtube],
      [youtube, bluesky],
    ];
    for (const order of orders) {
      const platformOf = (id: string) => (id === youtube ? "youtube" : id === tiktok ? "tiktok" : "bluesky");
      const postId = await insertPost(db, {
        accountId: demo.accountId,
        connections: order.map((id) => ({ id, platform: platformOf(id) })),
        content: content({ caption: "in order", mediaItems: [{ url: video, mediaType: "VIDEO" }] }),
      });
      const outcomes = await publishing.publishNow(postId, 20_000);
      expect(outcomes.map((outcome) => outcome.connectionId)).toEqual(order);
    }
  });
});

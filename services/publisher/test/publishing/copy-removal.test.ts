import { describe, expect, test } from "vitest";
import { needsReconnect, type OpenConnection, type TokenVault } from "../../src/connections/token-vault.ts";
import type { Platform } from "../../src/contracts/post.ts";
import type { Adapters } from "../../src/platforms/index.ts";
import { PlatformError } from "../../src/platforms/index.ts";
import { removePublishedCopy } from "../../src/publishing/copy-removal.ts";

// The refusals the end-to-end tests on the twins do not reach (tests/routes/posts-delete-published
// covers deleting, a video already gone, a refreshed token, PERMISSION_MISSING and UNAVAILABLE).

const opened = (platform: Platform, accessToken = "token-1"): OpenConnection => ({
  row: {
    id: "conn_1",
    accountId: "acct_1",
    platform,
    accountName: "someone",
    platformAccountId: "did:plc:someone",
    sealedTokens: "sealed",
    status: "active",
    statusReason: null,
  },
  secrets: { accessToken, service: "https://pds.example", did: "did:plc:someone" },
});

/** A vault handing out `token-1`, and `token-2` once that was refused; or failing as `fails`. */
function vault(platform: Platform, fails?: PlatformError): TokenVault & { refreshed: number } {
  const state = {
    refreshed: 0,
    async open() {
      if (fails) throw fails;
      return opened(platform);
    },
    async refreshRejected() {
      state.refreshed += 1;
      return opened(platform, "token-2");
    },
  };
  return state;
}

/** Adapters whose delete calls answer as `answer` says, recording each call. */
function adapters(answer: (token: string) => Promise<unknown>) {
  const calls: unknown[][] = [];
  const stub = {
    youtube: {
      deleteVideo: async (token: string, id: string) => {
        calls.push(["deleteVideo", token, id]);
        return (await answer(token)) as "deleted" | "not_found";
      },
    },
    bluesky: {
      deleteRecord: async (service: string, token: string, input: unknown) => {
        calls.push(["deleteRecord", service, token, input]);
        await answer(token);
      },
    },
  } as unknown as Adapters;
  return { stub, calls };
}

const copy = (platform: Platform, platformPostId: string) => ({
  connectionId: "conn_1",
  platform,
  platformPostId,
});

describe("removing a published copy: what each answer comes to", () => {
  test("Bluesky: the repo and record key come from the post's AT URI; a refused token is refreshed once", async () => {
    const tokens = vault("bluesky");
    const { stub, calls } = adapters(async (token) => {
      if (token === "token-1")
        throw new PlatformError("bluesky", "unauthorized", "ExpiredToken", "Token has expired");
    });
    const removal = await removePublishedCopy(
      { adapters: stub, vault: tokens },
      copy("bluesky", "at://did:plc:someone/app.bsky.feed.post/3kabcdefghi22"),
    );
    expect(removal).toEqual({ deleted: true, alreadyGone: false });
    expect(tokens.refreshed).toBe(1);
    expect(calls.map((call) => call[2])).toEqual(["token-1", "token-2"]);
    expect(calls[1]?.[3]).toEqual({ repo: "did:plc:someone", rkey: "3kabcdefghi22" });
  });

  test("an id that is not a post's AT URI is refused without a call", async () => {
    const { stub, calls } = adapters(async () => undefined);
    for (const id of ["3kabc", "at://did:plc:someone/app.bsky.feed.like/3kabcdefghi22"]) {
      expect(
        await removePublishedCopy({ adapters: stub, vault: vault("bluesky") }, copy("bluesky", id)),
      ).toEqual({
        deleted: false,
        code: "REFUSED",
        reason: `${id} is not the AT URI of a post.`,
      });
    }
    expect(calls).toEqual([]);
  });

  test("a connection that must be connected again: RECONNECT_REQUIRED, nothing asked of the platform", async () => {
    const { stub, calls } = adapters(async () => "deleted");
    const removal = await removePublishedCopy(
      {
        adapters: stub,
        vault: vault("youtube", needsReconnect("youtube", "invalid_grant: Token has been revoked.")),
      },
      copy("youtube", "dQw4w9WgXcQ"),
    );
    expect(removal).toMatchObject({ deleted: false, code: "RECONNECT_REQUIRED" });
    expect(removal.deleted === false && removal.reason).toContain("invalid_grant");
    expect(calls).toEqual([]);
  });

  test("another channel's video (403 forbidden) is REFUSED with YouTube's reason", async () => {
    const { stub } = adapters(async () => {
      throw new PlatformError(
        "youtube",
        "permanent",
        "forbidden",
        "The video that you are trying to delete cannot be deleted.",
      );
    });
    expect(
      await removePublishedCopy({ adapters: stub, vault: vault("youtube") }, copy("youtube", "dQw4w9WgXcQ")),
    ).toEqual({
      deleted: false,
      code: "REFUSED",
      reason: "forbidden: The video that you are trying to delete cannot be deleted.",
    });
  });

  test("TikTok is answered NOT_SUPPORTED without opening the connection", async () => {
    const { stub, calls } = adapters(async () => undefined);
    const failing = vault(
      "tiktok",
      new PlatformError("tiktok", "transient", "network", "must not be opened"),
    );
    expect(
      await removePublishedCopy({ adapters: stub, vault: failing }, copy("tiktok", "7300000000000000000")),
    ).toEqual({
      deleted: false,
      code: "NOT_SUPPORTED",
      reason: "TikTok's API offers no way to delete a post: remove it in the TikTok app.",
    });
    expect(calls).toEqual([]);
  });
});

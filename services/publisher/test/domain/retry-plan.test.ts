import { describe, expect, test } from "vitest";
import type { Platform, TargetStatus } from "../../src/contracts/post.ts";
import { handleEvidence, planRetry, type RetryCandidate } from "../../src/domain/retry-plan.ts";

const candidate = (
  connectionId: string,
  platform: Platform,
  status: TargetStatus,
  platformHandle: Record<string, unknown> | null = null,
): RetryCandidate => ({ id: `tgt_${connectionId}`, connectionId, platform, status, platformHandle });

describe("what a failed target's saved handle proves", () => {
  test.for<[Platform, Record<string, unknown> | null, string]>([
    ["youtube", null, "nothing_sent"],
    ["youtube", {}, "nothing_sent"],
    ["youtube", { sessionUri: "sealed:…" }, "unknown"],
    ["tiktok", null, "nothing_sent"],
    ["tiktok", {}, "nothing_sent"],
    ["tiktok", { phase: "initiating", kind: "video" }, "nothing_sent"],
    ["tiktok", { phase: "initiating", kind: "photo" }, "unknown"],
    ["tiktok", { phase: "uploading", kind: "video", publishId: "p_1", uploadUrl: "sealed" }, "unknown"],
    ["tiktok", { phase: "processing", kind: "photo", publishId: "p_2" }, "unknown"],
    ["bluesky", null, "nothing_sent"],
    [
      "bluesky",
      { rkey: "3kabcdefghi22", repo: "did:plc:x", createdAt: "2026-01-01T00:00:00.000Z" },
      "same_copy",
    ],
  ])("%s %j: %s", ([platform, handle, evidence]) => {
    expect(handleEvidence(platform, handle)).toBe(evidence);
  });
});

describe("planning a retry", () => {
  test("every failed target runs again; one whose handle pins its copy keeps the handle", () => {
    const plan = planRetry(
      [
        candidate("a", "youtube", "failed"),
        candidate("b", "bluesky", "failed", { rkey: "3kabcdefghi22", repo: "did:plc:x" }),
        candidate("c", "tiktok", "published"),
      ],
      { force: false },
    );
    expect(plan).toEqual({
      kind: "run",
      targets: [
        { id: "tgt_a", connectionId: "a", platform: "youtube", evidence: "nothing_sent", dropHandle: false },
        { id: "tgt_b", connectionId: "b", platform: "bluesky", evidence: "same_copy", dropHandle: false },
      ],
    });
  });

  test("one unknown outcome stops the whole retry unless forced; forced, it starts over without its handle", () => {
    const targets = [
      candidate("a", "youtube", "failed"),
      candidate("b", "tiktok", "failed", { phase: "initiating", kind: "photo" }),
    ];
    expect(planRetry(targets, { force: false })).toEqual({
      kind: "outcome_unknown",
      unknown: [
        { id: "tgt_b", connectionId: "b", platform: "tiktok", evidence: "unknown", dropHandle: true },
      ],
    });
    const forced = planRetry(targets, { force: true });
    expect(forced.kind).toBe("run");
    expect(
      forced.kind === "run" && forced.targets.map((target) => [target.connectionId, target.dropHandle]),
    ).toEqual([
      ["a", false],
      ["b", true],
    ]);
  });

  test("connectionIds narrow the retry: the clean one runs without the unknown one", () => {
    const targets = [
      candidate("a", "youtube", "failed"),
      candidate("b", "tiktok", "failed", { phase: "processing", kind: "video", publishId: "p" }),
    ];
    const plan = planRetry(targets, { force: false, connectionIds: ["a"] });
    expect(plan.kind === "run" && plan.targets.map((target) => target.connectionId)).toEqual(["a"]);
  });

  test("nothing failed, a connection asked for whose target did not fail, or one that is not the post's: nothing runs", () => {
    const targets = [candidate("a", "youtube", "failed"), candidate("b", "bluesky", "published")];
    expect(planRetry([candidate("b", "bluesky", "published")], { force: false })).toEqual({
      kind: "nothing_failed",
      notFailed: [candidate("b", "bluesky", "published")],
      notTargets: [],
    });
    expect(planRetry(targets, { force: false, connectionIds: ["a", "b"] })).toMatchObject({
      kind: "nothing_failed",
      notFailed: [{ connectionId: "b" }],
    });
    expect(planRetry(targets, { force: false, connectionIds: ["a", "z"] })).toMatchObject({
      kind: "nothing_failed",
      notTargets: ["z"],
    });
  });
});

import { describe, expect, test } from "vitest";
import { openHandle, sealHandle } from "../../src/publishing/handle-seal.ts";
import { testSealer } from "../publishing-support.ts";

describe("target handles at rest", () => {
  test("upload URLs are sealed, bound to their target; other fields stay readable", () => {
    const sealer = testSealer();
    const handle = { phase: "uploading", publishId: "p_1", uploadUrl: "https://upload.example/u?sig=secret" };
    const stored = sealHandle(sealer, "tgt_1", handle);
    expect(stored).toMatchObject({ phase: "uploading", publishId: "p_1" });
    expect(String(stored.uploadUrl)).not.toContain("secret");
    expect(openHandle(sealer, "tgt_1", stored)).toEqual(handle);
    expect(() => openHandle(sealer, "tgt_2", stored)).toThrow();
  });

  test("a plain URL saved before sealing is still read", () => {
    const sealer = testSealer();
    const legacy = { sessionUri: "https://www.googleapis.com/upload/youtube/v3/videos?upload_id=1" };
    expect(openHandle(sealer, "tgt_1", legacy)).toEqual(legacy);
    expect(openHandle(sealer, "tgt_1", null)).toBeNull();
  });
});

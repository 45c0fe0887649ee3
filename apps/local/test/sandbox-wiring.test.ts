import { createServer } from "node:net";
import type { Env } from "@app/core";
import { describe, expect, it } from "vitest";
import {
  type PublisherMediaSettings,
  publisherMediaPrefix,
  wirePublisherMedia,
  withPublisherMediaVerified,
} from "../src/sandbox-wiring.ts";

const HOST = "127.0.0.1";
const local = (port: number, extra: Partial<PublisherMediaSettings> = {}): PublisherMediaSettings => ({
  host: HOST,
  port,
  storage: { kind: "local" },
  ...extra,
});

/** Whether another listener can take `port` now. */
const isFree = (port: number) =>
  new Promise<boolean>((resolve) => {
    const probe = createServer();
    probe.once("error", () => resolve(false));
    probe.listen({ host: HOST, port, exclusive: true }, () => probe.close(() => resolve(true)));
  });

/** Definitions as the launcher sees them: the publisher's config from its variables. */
const definitions = (names: string[]) =>
  names.map((name) => ({
    name,
    loadConfig: (env: Env) =>
      local(Number(env.PUBLISHER_PORT ?? 3002), {
        publicUrl: env.PUBLISHER_PUBLIC_URL,
        ...(env.PUBLISHER_S3_PUBLIC_URL
          ? { storage: { kind: "s3", publicUrl: env.PUBLISHER_S3_PUBLIC_URL } }
          : {}),
      }),
  }));

describe("the publisher's media prefix, from its settings", () => {
  it("is the bucket's public URL, else the public URL, else where it listens", () => {
    expect(publisherMediaPrefix(local(4100))).toBe("http://127.0.0.1:4100/");
    expect(publisherMediaPrefix(local(4100, { publicUrl: "https://pub.example/base//" }))).toBe(
      "https://pub.example/base/",
    );
    expect(
      publisherMediaPrefix(
        local(4100, {
          publicUrl: "https://pub.example",
          storage: { kind: "s3", publicUrl: "https://cdn.example" },
        }),
      ),
    ).toBe("https://cdn.example/");
    expect(
      publisherMediaPrefix(local(4100, { storage: { kind: "local", publicUrl: "https://cdn.example" } })),
    ).toBe("http://127.0.0.1:4100/");
  });

  it("is not known while the system has not chosen its port", () => {
    expect(publisherMediaPrefix(local(0))).toBeUndefined();
    expect(publisherMediaPrefix(local(0, { publicUrl: "https://pub.example" }))).toBe("https://pub.example/");
  });

  it("goes into the sandbox's environment only, and never over a prefix set by hand", () => {
    const env = { A: "1" };
    expect(withPublisherMediaVerified({ name: "sandbox" }, env, "http://127.0.0.1:4100/")).toEqual({
      A: "1",
      SANDBOX_TIKTOK_VERIFIED_URL_PREFIXES: "http://127.0.0.1:4100/",
    });
    expect(withPublisherMediaVerified({ name: "publisher" }, env, "http://127.0.0.1:4100/")).toBe(env);
    const set = { SANDBOX_TIKTOK_VERIFIED_URL_PREFIXES: "https://mine.example/" };
    expect(withPublisherMediaVerified({ name: "sandbox" }, set, "http://127.0.0.1:4100/")).toBe(set);
  });
});

describe("the publisher's media wired into the sandbox before either starts", () => {
  it("pins a free port for a publisher on port 0, held until released, and verifies it", async () => {
    const media = await wirePublisherMedia(definitions(["sandbox", "publisher"]), { PUBLISHER_PORT: "0" });
    const port = Number(media.env.PUBLISHER_PORT);
    try {
      expect(port).toBeGreaterThan(0);
      expect(await isFree(port)).toBe(false);
      expect(media.wire({ name: "sandbox" }, media.env).SANDBOX_TIKTOK_VERIFIED_URL_PREFIXES).toBe(
        `http://127.0.0.1:${port}/`,
      );
    } finally {
      await media.release();
    }
    expect(await isFree(port)).toBe(true);
    await media.release();
  });

  it("leaves a fixed port or a public URL as set, and does nothing without a sandbox", async () => {
    const fixed = await wirePublisherMedia(definitions(["sandbox", "publisher"]), { PUBLISHER_PORT: "4100" });
    expect(fixed.env).toEqual({ PUBLISHER_PORT: "4100" });
    expect(fixed.wire({ name: "sandbox" }, {}).SANDBOX_TIKTOK_VERIFIED_URL_PREFIXES).toBe(
      "http://127.0.0.1:4100/",
    );
    const behindUrl = { PUBLISHER_PORT: "0", PUBLISHER_PUBLIC_URL: "https://pub.example" };
    const published = await wirePublisherMedia(definitions(["sandbox", "publisher"]), behindUrl);
    expect(published.env).toBe(behindUrl);
    expect(published.wire({ name: "sandbox" }, {}).SANDBOX_TIKTOK_VERIFIED_URL_PREFIXES).toBe(
      "https://pub.example/",
    );
    const alone = { PUBLISHER_PORT: "0" };
    const withoutSandbox = await wirePublisherMedia(definitions(["publisher"]), alone);
    expect(withoutSandbox.env).toBe(alone);
    expect(withoutSandbox.wire({ name: "sandbox" }, alone)).toBe(alone);
  });
});

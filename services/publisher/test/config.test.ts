import { ConfigError, createTextSealer } from "@app/core";
import { describe, expect, it } from "vitest";
import {
  DEFAULT_PRESIGN_EXPIRES_SECONDS,
  DEFAULT_PUBLISH_TIMEOUT_MS,
  DEFAULT_RATE_LIMIT,
  loadPublisherCliConfig,
  loadPublisherConfig,
} from "../src/config.ts";
import { createConnectionSealer } from "../src/connections/sealer.ts";
import { createStorage } from "../src/storage/index.ts";

const SECRET = "publisher-config-test-secret-0123456789abcdef";

describe("one configuration for the API and its workers", () => {
  it("reads the API's and the workers' settings in one pass over the environment", () => {
    const config = loadPublisherConfig({
      PUBLISHER_TOKEN_SECRET: SECRET,
      PUBLISHER_RATE_LIMIT: "5",
      PUBLISHER_WORKER_CONCURRENCY: "3",
      PUBLISHER_PLATFORM_URL: "http://127.0.0.1:3006/",
    });
    expect(config.rateLimit).toEqual({ limit: 5, windowSeconds: 60 });
    expect(config.publishing.workers.concurrency).toBe(3);
    expect(config.publishing.platforms.google.authorizeBase).toBe("http://127.0.0.1:3006");
    expect(config.publishing.blueskyIdentity.trustedOrigins).toEqual(["http://127.0.0.1:3006"]);
  });

  it("defaults to the spec's values, the same ones the app and the workers fall back to", () => {
    const config = loadPublisherConfig({ PUBLISHER_TOKEN_SECRET: SECRET });
    expect(config.rateLimit).toEqual({ limit: 120, windowSeconds: 60 });
    expect([config.publishTimeoutMs, config.presignExpiresSeconds]).toEqual([25_000, 900]);
    expect(DEFAULT_RATE_LIMIT).toEqual(config.rateLimit);
    expect([DEFAULT_PUBLISH_TIMEOUT_MS, DEFAULT_PRESIGN_EXPIRES_SECONDS]).toEqual([25_000, 900]);
    expect(config.publishing.workers).toEqual({
      concurrency: 16,
      accountShare: 0.25,
      reservedSlots: 1,
      pollIntervalMs: 1_000,
      leaseMs: 60_000,
      sweepIntervalMs: 15_000,
      tiktokProcessingTimeoutMs: 3_600_000,
      workerId: undefined,
    });
    expect(config.publishing.runWorkers).toBe(true);
  });

  it("refuses a misspelt variable of either half, naming it", () => {
    for (const typo of ["PUBLISHER_RATE_LIMT", "PUBLISHER_WORKER_CONCURENCY"]) {
      expect(() => loadPublisherConfig({ PUBLISHER_TOKEN_SECRET: SECRET, [typo]: "1" }), typo).toThrow(
        new RegExp(`${typo}: unknown setting`),
      );
    }
  });

  it("keeps base URLs without their trailing slash and refuses one with credentials or a query", () => {
    const config = loadPublisherConfig({
      PUBLISHER_TOKEN_SECRET: SECRET,
      PUBLISHER_PUBLIC_URL: "https://pub.example/base/",
    });
    expect(config.publicUrl).toBe("https://pub.example/base");
    for (const bad of ["https://u:p@pub.example", "https://pub.example/?a=1", "ftp://pub.example"]) {
      expect(
        () => loadPublisherConfig({ PUBLISHER_TOKEN_SECRET: SECRET, PUBLISHER_PUBLIC_URL: bad }),
        bad,
      ).toThrow(/PUBLISHER_PUBLIC_URL/);
    }
  });
});

describe("the operator CLI reads the same variables", () => {
  it("starts without PUBLISHER_TOKEN_SECRET, which the service itself requires", () => {
    expect(() => loadPublisherConfig({})).toThrow(/PUBLISHER_TOKEN_SECRET/);
    expect(loadPublisherCliConfig({ DATA_DIR: "/srv/data" })).toMatchObject({
      dataDir: "/srv/data",
      port: 3002,
    });
  });

  it("still refuses a bad value or an unknown setting, the token secret's included", () => {
    for (const env of [
      { PUBLISHER_TOKEN_SECRET: "short" },
      { PUBLISHER_WORKER_CONCURRENCY: "0" },
      { PUBLISHER_RATE_LIMT: "1" },
    ]) {
      expect(() => loadPublisherCliConfig(env), JSON.stringify(env)).toThrow(ConfigError);
    }
  });
});

describe("connection tokens", () => {
  it("open under the sealing purpose they were always sealed under", () => {
    const sealedBefore = createTextSealer(SECRET, "publisher.connections").seal("refresh-token");
    expect(createConnectionSealer(SECRET).open(sealedBefore)).toBe("refresh-token");
  });
});

describe("storage tells the app whether it must serve presigned uploads", () => {
  it("the embedded store does, with the credentials its URLs are signed with; S3 does not", () => {
    const base = () => "http://127.0.0.1:3002";
    const local = createStorage({ kind: "local", dir: "/tmp/unused", secret: SECRET }, base);
    expect(local.selfServedUploads?.credentials).toMatchObject({ secretAccessKey: SECRET });
    const s3 = createStorage(
      {
        kind: "s3",
        region: "us-east-1",
        bucket: "media",
        accessKeyId: "id",
        secretAccessKey: "secret",
        forcePathStyle: true,
      },
      base,
    );
    expect(s3.selfServedUploads).toBeUndefined();
  });
});

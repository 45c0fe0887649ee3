import { mkdtempSync } from "node:fs";
import { request } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { newId, type RunningServer, type ServiceApp } from "@app/core";
import type { Database } from "@app/db";
import { type FakeClock, fakeClock, silentLogger } from "@app/testkit";
import { createApp, type PublisherDeps } from "../src/app.ts";
import type { Platform } from "../src/contracts/post.ts";
import type { Scope } from "../src/domain/scopes.ts";
import { createFakePublishing, type FakeOutcome, type FakePublishing } from "../src/publishing.fake.ts";
import { LocalDiskStorage } from "../src/storage/local-disk.ts";
import { createAccount, createApiKey } from "../src/store/accounts.ts";

/** The base URL `app.request` answers at, and so the storage's public base in tests. */
export const TEST_BASE = "http://localhost";

export const TEST_CREDENTIALS = {
  accessKeyId: "test-access-key",
  secretAccessKey: "test-secret-key-0123456789",
  region: "us-east-1",
};

export { type FakeClock, fakeClock } from "@app/testkit";

/** Local-disk storage in a fresh temp folder, public at {@link TEST_BASE}. */
export function testStorage(): LocalDiskStorage {
  return new LocalDiskStorage({
    dir: mkdtempSync(join(tmpdir(), "publisher-test-")),
    publicBaseUrl: () => TEST_BASE,
    credentials: TEST_CREDENTIALS,
  });
}

export type TestApp = {
  app: ServiceApp;
  storage: LocalDiskStorage;
  publishing: FakePublishing;
  clock: FakeClock;
};

/** A publisher app on a test database with a fake clock, temp storage and fake publishing. */
export function publisherApp(
  db: Database,
  options: {
    now?: string;
    decide?: (target: { connectionId: string; platform: string }) => FakeOutcome;
  } & Partial<Omit<PublisherDeps, "db" | "clock">> = {},
): TestApp {
  const clock = fakeClock(options.now ?? "2026-06-15T06:00:00Z");
  const storage = testStorage();
  const publishing = createFakePublishing(db, options.decide);
  const app = createApp({ logger: silentLogger(), storage, publishing, ...options, db, clock });
  return { app, storage, publishing, clock };
}

export type SeededAccount = { accountId: string; key: string; keyId: string };

/** An account with one key (all scopes unless told), straight in the store. */
export async function seedAccount(
  db: Database,
  options: { scopes?: Scope[]; timeZone?: string } = {},
): Promise<SeededAccount> {
  const account = await createAccount(db, { name: "Test account", timeZone: options.timeZone });
  const issued = await createApiKey(db, { accountId: account.id, scopes: options.scopes, label: "test" });
  return { accountId: account.id, key: issued.key, keyId: issued.id };
}

/** A connection of the account, written straight into the table (tokens are publishing's concern). */
export async function seedConnection(
  db: Database,
  accountId: string,
  platform: Platform,
  status: "active" | "needs_reconnect" = "active",
): Promise<string> {
  const id = newId("conn");
  await db.query(
    `INSERT INTO publisher.connections (id, account_id, platform, account_name, platform_account_id, tokens, status)
     VALUES ($1, $2, $3, $4, $5, 'sealed-elsewhere', $6)`,
    [id, accountId, platform, `${platform} account`, newId("ext"), status],
  );
  return id;
}

/** A request with an API key (none when `key` is undefined) and a JSON body when given. */
export function call(
  app: ServiceApp,
  method: string,
  path: string,
  key: string | undefined,
  body?: unknown,
  headers: Record<string, string> = {},
): Promise<Response> {
  const all: Record<string, string> = { ...headers };
  if (key !== undefined) all["x-api-key"] = key;
  if (body !== undefined) all["content-type"] ??= "application/json";
  return Promise.resolve(
    app.request(path, {
      method,
      headers: all,
      body: body === undefined ? undefined : typeof body === "string" ? body : JSON.stringify(body),
    }),
  );
}

export const VIDEO = "https://cdn.example.com/clip.mp4";
export const IMAGE = (n: number) => `https://cdn.example.com/photo-${n}.jpg`;

/** Sends `bytes` over real HTTP to a running server, in 64 KiB writes; the answer's status and body. */
export function sendBytes(
  server: RunningServer,
  method: string,
  path: string,
  headers: Record<string, string>,
  bytes: Buffer,
): Promise<{ status: number; text: string }> {
  return new Promise((resolve, reject) => {
    const req = request(
      `${server.url}${path}`,
      { method, headers: { ...headers, "content-length": String(bytes.length) } },
      (res) => {
        const chunks: Buffer[] = [];
        res.on("data", (chunk: Buffer) => chunks.push(chunk));
        res.once("end", () =>
          resolve({ status: res.statusCode ?? 0, text: Buffer.concat(chunks).toString("utf8") }),
        );
      },
    );
    req.once("error", reject);
    for (let at = 0; at < bytes.length; at += 64 * 1024) req.write(bytes.subarray(at, at + 64 * 1024));
    req.end();
  });
}

/**
 * Counts calls of `ArrayBuffer.prototype.transfer` (how the local store frees written chunks)
 * until `restore()`.
 */
export function countTransfers(): { count(): number; restore(): void } {
  const transfer = ArrayBuffer.prototype.transfer;
  let count = 0;
  ArrayBuffer.prototype.transfer = function counted(this: ArrayBuffer, length?: number) {
    count += 1;
    return transfer.call(this, length);
  };
  return {
    count: () => count,
    restore: () => {
      ArrayBuffer.prototype.transfer = transfer;
    },
  };
}

/** A raw `POST /api/v1/upload` of `bytes`, named `name`, to a served app. */
export function uploadRaw(server: RunningServer, key: string, bytes: Buffer, name = "clip.mp4") {
  return sendBytes(
    server,
    "POST",
    "/api/v1/upload",
    { "x-api-key": key, "x-filename": name, "content-type": "video/mp4" },
    bytes,
  );
}

/** An upload URL for a video of `size` bytes from `POST /api/v2/upload`, and its storage path. */
export async function presignVideo(
  app: ServiceApp,
  key: string,
  size: number,
): Promise<{ url: URL; path: string }> {
  const res = await call(app, "POST", "/api/v2/upload", key, {
    contentLength: size,
    contentType: "video/mp4",
  });
  const answer = (await res.json()) as { uploadUrl: string; path: string };
  return { url: new URL(answer.uploadUrl), path: answer.path };
}

/** The PUT of `bytes` to a presigned URL, signed for the storage's public host, sent to a served app. */
export function putPresigned(server: RunningServer, url: URL, bytes: Buffer) {
  return sendBytes(
    server,
    "PUT",
    `${url.pathname}${url.search}`,
    { host: url.host, "content-type": "video/mp4" },
    bytes,
  );
}

/** A multipart `POST /api/v1/upload` of `bytes` as the field `file` (`clip.mp4`) to a served app. */
export function uploadMultipart(server: RunningServer, key: string, bytes: Buffer) {
  const boundary = "----publisher-test-boundary";
  const form = Buffer.concat([
    Buffer.from(
      `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="clip.mp4"\r\nContent-Type: video/mp4\r\n\r\n`,
    ),
    bytes,
    Buffer.from(`\r\n--${boundary}--\r\n`),
  ]);
  return sendBytes(
    server,
    "POST",
    "/api/v1/upload",
    { "x-api-key": key, "content-type": `multipart/form-data; boundary=${boundary}` },
    form,
  );
}

import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo, Socket } from "node:net";
import type { Logger } from "@app/core";
import type { Database } from "@app/db";
import { type FakeClock, silentLogger } from "@app/testkit";
import { Webhook } from "standardwebhooks";
import { vi } from "vitest";
import type { PublisherEventType } from "../src/contracts/events.ts";
import { appendEvent } from "../src/store/events.ts";
import { createWebhookWorker, type WebhookWorker } from "../src/webhooks/delivery-worker.ts";
import type { WebhookRetryPolicy } from "../src/webhooks/retry-schedule.ts";
import { createWebhookSealer } from "../src/webhooks/secrets.ts";
import type { WebhookSender } from "../src/webhooks/sender.ts";
import type { WebhookTargetPolicy } from "../src/webhooks/target-policy.ts";
import type { WebhookRouteSettings } from "../src/webhooks/wiring.ts";
import { call, publisherApp, seedAccount, type TestApp } from "./support.ts";

/** The token secret (`PUBLISHER_TOKEN_SECRET`) of the webhook tests. */
export const WEBHOOK_TEST_TOKEN_SECRET = "publisher-webhook-test-secret-0123456789abcdef";

/** The webhook secrets' sealer every test uses. */
export const testWebhookSealer = () => createWebhookSealer(WEBHOOK_TEST_TOKEN_SECRET);

/** The routes' webhook settings: the test sealer, and loopback receivers allowed unless told. */
export function webhookSettings(targets: WebhookTargetPolicy = { allowPrivate: true }): WebhookRouteSettings {
  return { sealer: testWebhookSealer(), targets };
}

/** A publisher app with the webhook routes (loopback receivers allowed unless told). */
export function webhookApp(
  db: Database,
  options: { now?: string; targets?: WebhookTargetPolicy; logger?: Logger } = {},
): TestApp {
  const { targets, ...rest } = options;
  return publisherApp(db, { ...rest, webhooks: webhookSettings(targets) });
}

/** The webhook worker on the test database, with the test sealer and the given sender and clock. */
export function testWorker(
  db: Database,
  input: { sender: WebhookSender; clock: FakeClock; policy?: Partial<WebhookRetryPolicy>; workerId?: string },
): WebhookWorker {
  return createWebhookWorker({
    db,
    logger: silentLogger(),
    clock: input.clock,
    sender: input.sender,
    sealer: testWebhookSealer(),
    workerId: input.workerId ?? "test-worker",
    policy: input.policy,
    // No jitter: each delay is its nominal value.
    random: () => 0.5,
  });
}

/** Records an event of the account in its own transaction (as a state change would); its id. */
export function recordEvent(
  db: Database,
  accountId: string,
  at: Date,
  type: PublisherEventType = "post.published",
  data: Record<string, unknown> = { postId: "post_test", status: "published" },
): Promise<string> {
  return db.transaction((tx) => appendEvent(tx, { accountId, type, data }, at));
}

/**
 * Fans out every event recorded so far: until no event is left unplaced or after the fan-out's
 * position (a fan-out reads a batch at a time; another process may be placing events; up to 20 s).
 */
export async function fanOutAll(db: Database, worker: WebhookWorker): Promise<void> {
  const until = Date.now() + 20_000;
  for (;;) {
    await worker.fanOut();
    const [left] = await db.query<{ n: number }>(
      `SELECT count(*)::int AS n FROM publisher.events e, publisher.webhook_fanout f
       WHERE e.position IS NULL OR e.position > f.last_position`,
    );
    if (left?.n === 0) return;
    if (Date.now() > until) throw new Error(`${left?.n} events were never fanned out`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/** Fans out every event recorded so far and sends whatever is due now, until nothing is left due. */
export async function drain(db: Database, worker: WebhookWorker): Promise<number> {
  await fanOutAll(db, worker);
  let attempts = 0;
  for (;;) {
    const settled = await worker.deliverDue(50);
    attempts += settled.length;
    if (settled.length === 0) return attempts;
  }
}

/**
 * Verifies a delivery with the `standardwebhooks` library's own `verify`, as a receiver would at
 * `at` (the library reads the real clock to bound the timestamp; tests run on a fake one). Throws
 * when no signature matches.
 */
export function verifyAt(secret: string, body: string, headers: Record<string, string>, at: Date): unknown {
  vi.useFakeTimers({ toFake: ["Date"], now: at });
  try {
    return new Webhook(secret).verify(body, headers);
  } finally {
    vi.useRealTimers();
  }
}

/** A request a {@link Receiver} got. */
export type Received = { headers: Record<string, string>; body: string; at: number };

/** What a receiver does with a request: answer it (status, headers, body), or drop it. */
export type ReceiverAnswer = { status: number; headers?: Record<string, string>; body?: string } | "drop";

/** A webhook receiver on a loopback port. */
export type Receiver = {
  url: string;
  port: number;
  received: Received[];
  /** Kills it: the listener closes and every open connection is destroyed. */
  kill(): Promise<void>;
};

/**
 * Starts a receiver (on `port`, or any free one; on loopback unless `host` says otherwise) that
 * records every request and answers `answer(request)`.
 */
export async function startReceiver(
  answer: (request: Received, index: number) => ReceiverAnswer = () => ({ status: 200 }),
  options: { port?: number; host?: string } = {},
): Promise<Receiver> {
  const received: Received[] = [];
  const sockets = new Set<Socket>();
  const server: Server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", () => {
      const headers: Record<string, string> = {};
      for (const [name, value] of Object.entries(req.headers)) {
        if (typeof value === "string") headers[name] = value;
      }
      const request = { headers, body: Buffer.concat(chunks).toString("utf8"), at: Date.now() };
      received.push(request);
      const reply = answer(request, received.length - 1);
      if (reply === "drop") {
        req.socket.destroy();
        return;
      }
      res.writeHead(reply.status, reply.headers ?? {});
      res.end(reply.body ?? "");
    });
  });
  server.on("connection", (socket) => {
    sockets.add(socket);
    socket.on("close", () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) =>
    server.listen(options.port ?? 0, options.host ?? "127.0.0.1", resolve),
  );
  const bound = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${bound}/hooks`,
    port: bound,
    received,
    kill: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}

/** What a webhook route test starts from: an app, an account with every scope, a reader, a stranger. */
export async function webhookRouteSetup(db: Database, options: { now?: string } = {}) {
  // A file's tests share a database: each starts with no endpoint (and so no delivery) left.
  await db.query("DELETE FROM publisher.webhook_endpoints");
  const owner = await seedAccount(db);
  const reader = await seedAccount(db, { scopes: ["posts:read"] });
  const uploader = await seedAccount(db, { scopes: ["media:write"] });
  const stranger = await seedAccount(db);
  const built = webhookApp(db, { now: options.now });
  const create = async (key: string, body: Record<string, unknown> = {}) => {
    const res = await call(built.app, "POST", "/api/v1/webhooks", key, {
      url: "https://hooks.example.com/publisher",
      ...body,
    });
    if (res.status !== 201) throw new Error(`creating a webhook answered ${res.status}: ${await res.text()}`);
    return (await res.json()) as { webhook: { id: string; url: string }; secret: string };
  };
  return { ...built, owner, reader, uploader, stranger, create };
}

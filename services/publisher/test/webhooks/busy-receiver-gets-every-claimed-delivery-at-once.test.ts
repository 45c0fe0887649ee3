import { createServer, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { describe, expect, it } from "vitest";
import { WEBHOOK_WORKER_DEFAULTS } from "../../src/webhooks/delivery-worker.ts";
import { createGuardedSender } from "../../src/webhooks/guarded-post.ts";

/** What one process may send one account (and so one receiver) at once: half of its slots. */
const SHARE = WEBHOOK_WORKER_DEFAULTS.concurrency / 2;

/**
 * An attempt's time limit runs from the moment it is sent. The sender's connection pool once
 * allowed 16 connections to one host while a process may claim twice that for one receiver: the
 * rest waited in the pool for a connection with their time limit running, and a receiver slower
 * than half the limit saw them time out (counted against it, pausing it) without ever getting them.
 */
describe("a busy receiver and the sender's connections", () => {
  it("gets every delivery a process claimed for it at once, none left waiting for a connection", async () => {
    const waiting: ServerResponse[] = [];
    // The receiver answers only once every delivery is there: one held back by the sender never comes.
    const server = createServer((_request, response) => {
      waiting.push(response);
      if (waiting.length === SHARE) for (const held of waiting) held.writeHead(200).end();
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks`;
    const sender = createGuardedSender({ allowPrivate: true }, { timeoutMs: 5_000, excerptBytes: 100 });
    try {
      const answers = await Promise.all(
        Array.from({ length: SHARE }, (_, index) =>
          sender.send({ url, headers: { "webhook-id": `evt_${index}` }, body: "{}" }),
        ),
      );
      expect(answers.map((answer) => (answer.kind === "answered" ? answer.status : answer.error))).toEqual(
        Array(SHARE).fill(200),
      );
    } finally {
      sender.close();
      server.closeAllConnections();
      server.close();
    }
  });
});

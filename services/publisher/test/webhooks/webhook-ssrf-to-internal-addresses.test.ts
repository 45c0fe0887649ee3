import { lookup } from "node:dns/promises";
import { hostname } from "node:os";
import { json, test } from "@app/testkit";
import { describe, expect } from "vitest";
import { isPublicAddress } from "../../src/media/address-policy.ts";
import { createGuardedSender } from "../../src/webhooks/guarded-post.ts";
import { call, seedAccount } from "../support.ts";
import { drain, recordEvent, startReceiver, testWorker, webhookApp } from "../webhooks-support.ts";

const FORBIDDEN = [
  "http://127.0.0.1:5432/",
  "http://169.254.169.254/latest/meta-data/",
  "http://[::1]:8080/",
  "http://10.0.0.5/hook",
  "http://localhost:3002/hook",
  "http://localhost.:3002/hook",
  "http://api.localhost./hook",
  // Other spellings of the same hosts: letter case, more than one final dot (percent-encoded or
  // an ideographic full stop too), IPv4 in hex or short form, IPv4-mapped IPv6, 0.0.0.0.
  "http://LOCALHOST:3002/hook",
  "http://localhost..:3002/hook",
  "http://api.localhost...:3002/hook",
  "http://localhost%2e%2e:3002/hook",
  "http://localhost\u3002:3002/hook",
  "http://0x7f.1:5432/",
  "http://127.1:5432/",
  "http://[::ffff:127.0.0.1]:5432/",
  "http://0:5432/",
  "http://[fd00:ec2::254]/",
];

const send = (url: string, allowPrivate: boolean) =>
  createGuardedSender({ allowPrivate }).send({ url, headers: { "webhook-id": "evt_x" }, body: "{}" });

describe("webhooks aimed at this network or the cloud's metadata are never sent", () => {
  test("an endpoint at a loopback, private, link-local or metadata address is refused when made", async ({
    db,
  }) => {
    const { key } = await seedAccount(db);
    const { app } = webhookApp(db, { targets: { allowPrivate: false } });
    for (const url of FORBIDDEN) {
      const res = await call(app, "POST", "/api/v1/webhooks", key, { url });
      expect(res.status, url).toBe(400);
      expect(await json(res)).toMatchObject({ error: "VALIDATION_FAILED", issues: [{ path: "url" }] });
    }
    const allowed = webhookApp(db, { targets: { allowPrivate: true } }).app;
    expect(
      (await call(allowed, "POST", "/api/v1/webhooks", key, { url: "http://127.0.0.1:5432/" })).status,
    ).toBe(201);
    for (const url of ["http://169.254.169.254/latest/meta-data/", "http://[fd00:ec2::254]/"]) {
      expect((await call(allowed, "POST", "/api/v1/webhooks", key, { url })).status, url).toBe(400);
    }
  });

  test("127.0.0.1:5432 and 169.254.169.254 are refused by the sender without a connection", async () => {
    const receiver = await startReceiver();
    try {
      for (const url of [...FORBIDDEN, receiver.url]) {
        const result = await send(url, false);
        expect(result, url).toMatchObject({ kind: "failed", refused: true, latencyMs: 0 });
      }
      expect((await send("http://169.254.169.254/", true)).kind).toBe("failed");
      expect(receiver.received).toHaveLength(0);
    } finally {
      await receiver.kill();
    }
  });

  test("a host name that resolves to this network is refused after DNS, at connect time", async () => {
    const name = hostname();
    const { address } = await lookup(name);
    expect(isPublicAddress(address), `${name} resolves to ${address}`).toBe(false);
    const receiver = await startReceiver(undefined, { host: "0.0.0.0" });
    try {
      const refused = await send(`http://${name}:${receiver.port}/hook`, false);
      expect(refused).toMatchObject({ kind: "failed", refused: true });
      expect(refused.kind === "failed" && refused.error).toMatch(/never sent to/);
      expect(receiver.received).toHaveLength(0);
      // The same name does reach the receiver when this network is allowed: the refusal was the guard's.
      expect(await send(`http://${name}:${receiver.port}/hook`, true)).toMatchObject({
        kind: "answered",
        status: 200,
      });
      expect(receiver.received).toHaveLength(1);
    } finally {
      await receiver.kill();
    }
  });

  test("a redirect, to 169.254.169.254 or to 127.0.0.1:5432 or anywhere, is never followed", async ({
    db,
  }) => {
    const elsewhere = await startReceiver();
    const locations = ["http://169.254.169.254/latest/meta-data/", "http://127.0.0.1:5432/", elsewhere.url];
    const redirector = await startReceiver((_request, index) => ({
      status: [302, 307, 308][index % 3] ?? 302,
      headers: { location: locations[index % 3] ?? elsewhere.url },
    }));
    try {
      await db.query("DELETE FROM publisher.webhook_endpoints");
      const { key, accountId } = await seedAccount(db);
      const { app, clock } = webhookApp(db, { now: new Date().toISOString() });
      const created = await json(await call(app, "POST", "/api/v1/webhooks", key, { url: redirector.url }));
      const worker = testWorker(db, { sender: createGuardedSender({ allowPrivate: true }), clock });
      await recordEvent(db, accountId, clock.now());
      await recordEvent(db, accountId, clock.now());
      await recordEvent(db, accountId, clock.now());
      await drain(db, worker);
      expect(redirector.received).toHaveLength(3);
      expect(elsewhere.received).toHaveLength(0);
      const page = await json(
        await call(app, "GET", `/api/v1/webhooks/${created.webhook.id}/deliveries`, key),
      );
      expect(page.deliveries).toHaveLength(3);
      for (const delivery of page.deliveries) {
        expect(delivery.status).toBe("pending");
        expect(delivery.attemptLog[0].error).toMatch(/redirects are not followed/);
      }
    } finally {
      await Promise.all([redirector.kill(), elsewhere.kill()]);
    }
  });

  test("an endpoint made while this network was allowed is not sent to once it is not", async ({ db }) => {
    const receiver = await startReceiver();
    try {
      await db.query("DELETE FROM publisher.webhook_endpoints");
      const { key, accountId } = await seedAccount(db);
      const { app, clock } = webhookApp(db, { now: new Date().toISOString() });
      const created = await json(await call(app, "POST", "/api/v1/webhooks", key, { url: receiver.url }));
      const worker = testWorker(db, { sender: createGuardedSender({ allowPrivate: false }), clock });
      await recordEvent(db, accountId, clock.now());
      await drain(db, worker);
      expect(receiver.received).toHaveLength(0);
      const page = await json(
        await call(app, "GET", `/api/v1/webhooks/${created.webhook.id}/deliveries`, key),
      );
      expect(page.deliveries[0].attemptLog[0]).toMatchObject({
        responseStatus: null,
        error: expect.stringMatching(/^Not sent: the URL points at an address webhooks are never sent to/),
      });
    } finally {
      await receiver.kill();
    }
  });
});

/**
 * Audit: a platform call that timed out was retried like any transient failure, eight times by
 * default: a self-hosted PDS (the user's own, so anyone's) that never answers `createRecord`
 * (30 s each) or reads an `uploadBlob` body at a crawl (300 s each) held a worker eight times that.
 * A timed-out platform call now counts as a stall: the target fails after the stall cap (two
 * attempts), with the reason. Other network failures (a refused connection) keep the full count.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { Readable } from "node:stream";
import { test } from "@app/testkit";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { connectBluesky } from "../../src/connections/connect-flows.ts";
import { sandboxAdapters } from "../../src/demo.ts";
import { createBlueskyClient } from "../../src/platforms/bluesky/bluesky-client.ts";
import { PlatformError } from "../../src/platforms/errors.ts";
import { defaultRetryPolicy, settlementForFailure } from "../../src/publishing/retry-policy.ts";
import { createAccount } from "../../src/store/accounts.ts";
import {
  content,
  insertPost,
  targetsOf,
  testSealer,
  usePlatformTwins,
  waitForSettledTarget,
} from "../publishing-support.ts";

const twins = usePlatformTwins();
const DID = "did:plc:silentpds0000000000000000";
const clock = { now: () => new Date() };
/** The repo whose getRecord is answered with a head and the start of a body, then nothing. */
const HALF_ANSWER = "did:plc:halfanswer000000000000000";

/** A PDS that signs in, finds no record, and never answers a post or a blob (or sends half an answer). */
let pds: { url: string; server: Server; createRecordCalls: number; held: Set<ServerResponse> };

beforeAll(async () => {
  const held = new Set<ServerResponse>();
  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const send = (status: number, body: unknown) =>
      res.writeHead(status, { "content-type": "application/json" }).end(JSON.stringify(body));
    const url = new URL(req.url ?? "/", "http://pds");
    const method = url.pathname.replace("/xrpc/", "");
    if (method === "com.atproto.server.createSession")
      return send(200, { accessJwt: "a", refreshJwt: "r", did: DID, handle: "silent.example" });
    if (method === "com.atproto.repo.getRecord" && url.searchParams.get("repo") !== HALF_ANSWER)
      return send(400, { error: "RecordNotFound", message: "none" });
    if (method === "com.atproto.repo.getRecord") {
      // The head of an answer, then nothing.
      res.writeHead(200, { "content-type": "application/json", "content-length": "100" });
      res.write('{"uri":');
    }
    if (method === "com.atproto.repo.createRecord") pds.createRecordCalls += 1;
    // createRecord and uploadBlob: never answered, the body read at a crawl.
    held.add(res);
    req.pause();
    res.on("close", () => held.delete(res));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  pds = {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    server,
    createRecordCalls: 0,
    held,
  };
});
afterAll(() => {
  pds.server.closeAllConnections();
  return new Promise<void>((resolve) => pds.server.close(() => resolve()));
});

const quickClient = () => createBlueskyClient({ timeoutMs: 200, uploadTimeoutMs: 200 }, clock);

async function failureOf(call: () => Promise<unknown>): Promise<unknown> {
  try {
    await call();
  } catch (error) {
    return error;
  }
  throw new Error("the call succeeded");
}

describe("a timed-out platform call is settled as a stall", () => {
  const policy = defaultRetryPolicy();

  it("createRecord, uploadBlob and an answer cut off after its head: retried once, then failed with the reason", async () => {
    const client = quickClient();
    const failures = {
      createRecord: await failureOf(() =>
        client.createRecord(pds.url, "jwt", { repo: DID, rkey: "3aaaaaaaaaaaa", record: {} }),
      ),
      uploadBlob: await failureOf(() =>
        client.uploadBlob(pds.url, "jwt", {
          body: Readable.from([Buffer.alloc(900_000)]),
          size: 900_000,
          contentType: "image/jpeg",
        }),
      ),
      halfAnswer: await failureOf(() => client.getRecord(pds.url, { repo: HALF_ANSWER, rkey: "x" })),
    };
    for (const [name, error] of Object.entries(failures)) {
      expect(settlementForFailure(error, 0, new Date(), policy).kind, name).toBe("later");
      const last = settlementForFailure(error, 1, new Date(), policy);
      expect(last, name).toMatchObject({
        kind: "failed",
        error: expect.stringMatching(/\(gave up after 2 attempts\)$/),
      });
      expect(last.kind === "failed" && last.error, name).toMatch(/timed out/);
    }
  });

  it("a refused connection is not a timeout: it keeps every attempt", async () => {
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, "127.0.0.1", resolve));
    const url = `http://127.0.0.1:${(closed.address() as AddressInfo).port}`;
    await new Promise<void>((resolve) => closed.close(() => resolve()));
    const error = await failureOf(() => quickClient().createSession(url, DID, "pw"));
    expect(error).toBeInstanceOf(PlatformError);
    expect(settlementForFailure(error, policy.maxAttempts - 2, new Date(), policy).kind).toBe("later");
  });
});

test("a Bluesky target whose PDS never answers createRecord fails after two attempts, with the reason", async ({
  db,
}) => {
  pds.createRecordCalls = 0;
  const account = await createAccount(db, { name: "silent PDS" });
  const adapters = { ...sandboxAdapters(twins.sandbox.url), bluesky: quickClient() };
  const connection = await connectBluesky(
    {
      db,
      clock,
      sealer: testSealer(),
      adapters,
      publicUrl: "http://127.0.0.1:3002",
      blueskyIdentity: { resolve: async () => ({ did: DID, pds: pds.url, handle: "silent.example" }) },
    },
    { accountId: account.id, handle: "silent.example", appPassword: "app-password" },
  );
  const postId = await insertPost(db, {
    accountId: account.id,
    connections: [{ id: connection.id, platform: "bluesky" }],
    content: content({ caption: "into the void" }),
  });
  // The tests' retry policy allows 5 attempts.
  const workers = twins.publishing(db, { adapters }).startWorkers({
    concurrency: 1,
    pollIntervalMs: 50,
    sweepIntervalMs: false,
  });
  try {
    const settled = await waitForSettledTarget(db, postId, "the target to fail");
    expect(settled.status).toBe("failed");
    expect(settled.error).toMatch(/timed out.*\(gave up after 2 attempts\)$/);
    expect(pds.createRecordCalls).toBe(2);
    const [target] = await targetsOf(db, postId);
    expect(target?.platformPostId ?? null).toBeNull();
  } finally {
    pds.server.closeAllConnections();
    await workers.stop();
  }
});

import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createIdentityResolver } from "../../src/platforms/bluesky/identity.ts";
import type { PlatformError } from "../../src/platforms/errors.ts";

/** A PLC directory of our own: each DID's document names the PDS the test gives it. */
const PDS_OF: Record<string, string> = {
  "did:plc:trustedaaaaaaaaaaaaaaaaa": "http://127.0.0.1:4999",
  "did:plc:metadataaaaaaaaaaaaaaaaa": "http://169.254.169.254",
  "did:plc:privateaaaaaaaaaaaaaaaaa": "https://10.0.0.7",
  "did:plc:plainhttpaaaaaaaaaaaaaaa": "http://pds.example.net",
  "did:plc:loopbackaaaaaaaaaaaaaaaa": "https://[::ffff:127.0.0.1]",
  "did:plc:impostoraaaaaaaaaaaaaaaa": "http://127.0.0.1:4999",
};
/** The handle each document claims (alice.test unless named here). */
const CLAIMS: Record<string, string> = { "did:plc:impostoraaaaaaaaaaaaaaaa": "jay.bsky.team" };
const HANDLES: Record<string, string> = {
  "alice.test": "did:plc:trustedaaaaaaaaaaaaaaaaa",
  "jay.bsky.team": "did:plc:somebodyelseaaaaaaaaaaaa",
};

let plc: Server;
let plcUrl: string;
beforeAll(async () => {
  plc = createServer((req, res) => {
    const did = decodeURIComponent((req.url ?? "").slice(1));
    const pds = PDS_OF[did];
    if (!pds) return void res.writeHead(404).end();
    res.writeHead(200, { "content-type": "application/json" });
    res.end(
      JSON.stringify({
        id: did,
        alsoKnownAs: [`at://${CLAIMS[did] ?? "alice.test"}`],
        service: [{ id: "#atproto_pds", type: "AtprotoPersonalDataServer", serviceEndpoint: pds }],
      }),
    );
  });
  await new Promise<void>((resolve) => plc.listen(0, "127.0.0.1", resolve));
  plcUrl = `http://127.0.0.1:${(plc.address() as AddressInfo).port}`;
});
afterAll(() => new Promise((resolve) => plc.close(resolve)));

const resolver = (overrides: { plcUrl?: string } = {}) =>
  createIdentityResolver(
    { entryService: "https://entry.test", plcUrl, trustedOrigins: ["http://127.0.0.1:4999"], ...overrides },
    { resolveHandle: async (_service, handle) => HANDLES[handle] },
  );

const refusal = (promise: Promise<unknown>) =>
  promise.then(
    () => {
      throw new Error("resolved");
    },
    (error: PlatformError) => ({ kind: error.kind, reason: error.reason, message: error.message }),
  );

describe("finding a Bluesky account's PDS", () => {
  it("follows handle → DID → document → PDS, with or without the @", async () => {
    expect(await resolver().resolve("@Alice.test")).toEqual({
      did: "did:plc:trustedaaaaaaaaaaaaaaaaa",
      handle: "alice.test",
      pds: "http://127.0.0.1:4999",
    });
  });

  it("shows a handle only when the DID document and the handle's resolution agree", async () => {
    expect((await resolver().resolve("did:plc:trustedaaaaaaaaaaaaaaaaa")).handle).toBe("alice.test");
    const impostor = await resolver().resolve("did:plc:impostoraaaaaaaaaaaaaaaa");
    expect(impostor).toEqual({ did: "did:plc:impostoraaaaaaaaaaaaaaaa", pds: "http://127.0.0.1:4999" });
    expect((await refusal(resolver().resolve("not a handle!"))).message).toMatch(/is not a Bluesky handle/);
  });

  it("refuses a PDS on a metadata, private or loopback address, or over plain http, unless trusted", async () => {
    for (const did of [
      "did:plc:metadataaaaaaaaaaaaaaaaa",
      "did:plc:privateaaaaaaaaaaaaaaaaa",
      "did:plc:plainhttpaaaaaaaaaaaaaaa",
      "did:plc:loopbackaaaaaaaaaaaaaaaa",
    ]) {
      expect(await refusal(resolver().resolve(did)), did).toMatchObject({
        kind: "permanent",
        reason: "IdentityUnresolved",
      });
    }
  });

  it("names an unknown handle, an unknown DID and an unsupported DID method", async () => {
    expect((await refusal(resolver().resolve("nobody.test"))).message).toMatch(
      /No Bluesky account has the handle/,
    );
    expect((await refusal(resolver().resolve("did:plc:unknownaaaaaaaaaaaaaaaaa"))).message).toMatch(
      /could not be read/,
    );
    expect((await refusal(resolver().resolve("did:key:z6Mk"))).message).toMatch(/not a did:plc or did:web/);
  });

  it("reports a PLC directory that does not answer as the platform being unavailable", async () => {
    const down = resolver({ plcUrl: "http://127.0.0.1:1" });
    expect(await refusal(down.resolve("did:plc:trustedaaaaaaaaaaaaaaaaa"))).toMatchObject({
      kind: "transient",
    });
  });
});

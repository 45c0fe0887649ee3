import { request } from "node:http";
import { json, silentLogger } from "@app/testkit";
import { parseMultikey } from "@atproto/crypto";
import { IdResolver } from "@atproto/identity";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { loadSandboxConfig } from "../../src/config.ts";
import { DEMO_BLUESKY, DEMO_BLUESKY_SELF_HOSTED } from "../../src/demo.ts";
import { sandboxService } from "../../src/service.ts";
import { blueskySession, type SandboxNetwork, startSandboxNetwork } from "../harness.ts";

let sandbox: SandboxNetwork;
beforeAll(async () => {
  sandbox = await startSandboxNetwork();
});
afterAll(() => sandbox.close());

/** `@atproto/identity` pointed at the sandbox's PLC directory; loopback needs plain fetch (its default refuses IP hosts). */
const resolver = () => new IdResolver({ plcUrl: sandbox.plcUrl, fetch: globalThis.fetch });

/** GET with a chosen Host header (fetch sends the URL's), as a handle's own domain would reach its PDS. */
function getWithHost(url: string, host: string): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = request(url, { headers: { host } }, (res) => {
      let body = "";
      res.on("data", (chunk) => {
        body += chunk;
      });
      res.on("end", () => resolve({ status: res.statusCode ?? 0, body }));
    });
    req.on("error", reject);
    req.end();
  });
}

describe("the PLC directory", () => {
  test.for([
    ["the default PDS's account", DEMO_BLUESKY, "url"],
    ["the second PDS's account", DEMO_BLUESKY_SELF_HOSTED, "pds2Url"],
  ] as const)(
    "%s resolves with @atproto/identity to its handle, signing key and PDS",
    async ([, account, pds]) => {
      const data = await resolver().did.resolveAtprotoData(account.did);
      expect(data).toEqual({
        did: account.did,
        handle: account.handle,
        pds: sandbox[pds],
        signingKey: expect.stringMatching(/^did:key:zQ3s/),
      });
    },
  );

  test("the document is plc.directory's shape, with a Multikey secp256k1 key", async () => {
    const res = await fetch(`${sandbox.plcUrl}/${encodeURIComponent(DEMO_BLUESKY.did)}`);
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toContain("application/did+ld+json");
    const document = await json(res);
    expect(document).toMatchObject({
      id: DEMO_BLUESKY.did,
      alsoKnownAs: [`at://${DEMO_BLUESKY.handle}`],
      verificationMethod: [
        { id: `${DEMO_BLUESKY.did}#atproto`, type: "Multikey", controller: DEMO_BLUESKY.did },
      ],
      service: [{ id: "#atproto_pds", type: "AtprotoPersonalDataServer", serviceEndpoint: sandbox.url }],
    });
    // @atproto/crypto decompresses the point: it must lie on the curve.
    const key = parseMultikey(document.verificationMethod[0].publicKeyMultibase);
    expect(key.jwtAlg).toBe("ES256K");
    expect([key.keyBytes.length, key.keyBytes[0]]).toEqual([65, 0x04]);
  });

  test("an unknown DID is 404 'DID not registered', which the resolver reads as not found", async () => {
    const res = await fetch(`${sandbox.plcUrl}/did:plc:nobodyaaaaaaaaaaaaaaaaaa`);
    expect(res.status).toBe(404);
    expect(await json(res)).toEqual({ message: "DID not registered: did:plc:nobodyaaaaaaaaaaaaaaaaaa" });
    expect(await resolver().did.resolve("did:plc:nobodyaaaaaaaaaaaaaaaaaa")).toBeNull();
  });
});

describe("the PLC directory: faults", () => {
  test("plc.resolveDid is an operation faults can target: the next lookup fails in plc.directory's body", async () => {
    const operations = await json(await fetch(`${sandbox.url}/_sandbox/operations`));
    expect(operations.operations).toContainEqual(expect.objectContaining({ operation: "plc.resolveDid" }));
    const fault = await fetch(`${sandbox.url}/_sandbox/faults`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ operation: "plc.resolveDid", status: 503, message: "try later" }),
    });
    expect(fault.status).toBe(201);
    const failed = await fetch(`${sandbox.plcUrl}/${DEMO_BLUESKY.did}`);
    expect(failed.status).toBe(503);
    expect(await json(failed)).toEqual({ message: "try later" });
    expect((await fetch(`${sandbox.plcUrl}/${DEMO_BLUESKY.did}`)).status).toBe(200);
  });
});

describe("the second PDS", () => {
  test("signs in its account, whose DID document names it", async () => {
    const session = await blueskySession(sandbox.pds2Url, DEMO_BLUESKY_SELF_HOSTED);
    expect(session).toMatchObject({
      did: DEMO_BLUESKY_SELF_HOSTED.did,
      didDoc: { service: [{ serviceEndpoint: sandbox.pds2Url }] },
    });
  });

  test("/.well-known/atproto-did answers for its handles by Host, and 404 'User not found' otherwise", async () => {
    const own = await getWithHost(
      `${sandbox.pds2Url}/.well-known/atproto-did`,
      DEMO_BLUESKY_SELF_HOSTED.handle,
    );
    expect(own).toEqual({ status: 200, body: DEMO_BLUESKY_SELF_HOSTED.did });
    const foreign = await getWithHost(`${sandbox.pds2Url}/.well-known/atproto-did`, DEMO_BLUESKY.handle);
    expect(foreign).toEqual({ status: 404, body: "User not found" });
    const home = await getWithHost(`${sandbox.url}/.well-known/atproto-did`, DEMO_BLUESKY.handle);
    expect(home).toEqual({ status: 200, body: DEMO_BLUESKY.did });
  });
});

describe("configuration and the service's listeners", () => {
  test("the PLC directory and the second PDS listen beside the sandbox: 3007 and 3008 by default, free ports when SANDBOX_PORT is 0", () => {
    expect(loadSandboxConfig({}).sandbox.bluesky).toMatchObject({
      plcPort: 3007,
      pds2Port: 3008,
      refreshGraceSeconds: 7200,
    });
    expect(loadSandboxConfig({ SANDBOX_PORT: "0" }).sandbox.bluesky).toMatchObject({
      plcPort: 0,
      pds2Port: 0,
    });
    expect(
      loadSandboxConfig({
        SANDBOX_PLC_PORT: "4107",
        SANDBOX_PDS2_PORT: "0",
        SANDBOX_BLUESKY_REFRESH_GRACE_SECONDS: "60",
      }).sandbox.bluesky,
    ).toMatchObject({ plcPort: 4107, pds2Port: 0, refreshGraceSeconds: 60 });
    expect(() => loadSandboxConfig({ SANDBOX_PLC_PORT: "70000" })).toThrow(/SANDBOX_PLC_PORT/);
  });

  test("the service opens both listeners while built, reports them in its credentials, and closes them on stop", async () => {
    const config = loadSandboxConfig({ SANDBOX_PORT: "0" });
    const built = await sandboxService.build({ config, db: {} as never, logger: silentLogger() });
    try {
      built.onListening?.("http://127.0.0.1:3999");
      const { sandboxBluesky, sandboxBlueskySelfHosted } = built.credentials as Record<
        string,
        Record<string, string>
      >;
      expect(sandboxBluesky).toMatchObject({
        service: "http://127.0.0.1:3999",
        plcUrl: expect.stringMatching(/^http:\/\/127\.0\.0\.1:\d+$/),
      });
      expect(sandboxBlueskySelfHosted).toEqual({
        service: expect.stringMatching(/^http:\/\/127\.0\.0\.1:\d+$/),
        plcUrl: sandboxBluesky?.plcUrl,
        handle: DEMO_BLUESKY_SELF_HOSTED.handle,
        appPassword: DEMO_BLUESKY_SELF_HOSTED.appPassword,
      });
      const document = await json(await fetch(`${sandboxBluesky?.plcUrl}/${DEMO_BLUESKY.did}`));
      expect(document.service[0].serviceEndpoint).toBe("http://127.0.0.1:3999");
      const describe = await fetch(
        `${sandboxBlueskySelfHosted?.service}/xrpc/com.atproto.server.describeServer`,
      );
      expect(describe.status).toBe(200);
    } finally {
      await built.stop?.();
    }
    const { sandboxBluesky } = built.credentials as Record<string, Record<string, string>>;
    await expect(fetch(`${sandboxBluesky?.plcUrl}/${DEMO_BLUESKY.did}`)).rejects.toThrow();
  });
});

import { mkdtemp, readFile, rm, stat } from "node:fs/promises";
import { type AddressInfo, createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { LocalManifest } from "../src/platform.ts";
import { platformServices } from "../src/services.ts";
import { launch, waitFor, withStoredDatabase } from "./support/launch.ts";

type GatewayDemo = { gatewayKey: string };

/** The demo gateway key runs the shop and markets tools over /v1/run, with the demo shop key; no key is printed. */
async function expectGatewayToolsRun(manifest: LocalManifest, output: string): Promise<void> {
  const credentials = manifest.credentials as {
    gateway: GatewayDemo;
    shop: { shopKey: string };
    markets: { sampleRefs: { slug: string } };
  };
  expect(output).not.toContain(credentials.gateway.gatewayKey);
  expect(output).not.toContain(credentials.shop.shopKey);
  const run = (body: unknown, upstreamKey?: string) =>
    fetch(`${manifest.services.gateway?.url}/v1/run`, {
      method: "POST",
      headers: {
        authorization: `Bearer ${credentials.gateway.gatewayKey}`,
        "content-type": "application/json",
        ...(upstreamKey ? { "x-upstream-key": upstreamKey } : {}),
      },
      body: JSON.stringify(body),
    });
  const event = await run({
    provider: "markets",
    endpoint: "/pm/event",
    method: "GET",
    input: { queryParams: { ref: credentials.markets.sampleRefs.slug } },
  });
  expect(event.status).toBe(200);
  expect(await event.json()).toMatchObject({ upstream: { status: 200 }, cost: { amount: "0" } });
  const shop = await run(
    { provider: "shop", endpoint: "/api/shops/agent-availability", method: "GET", input: {} },
    credentials.shop.shopKey,
  );
  expect(shop.status).toBe(200);
  expect(await shop.json()).toMatchObject({
    upstream: { status: 200 },
    output: { shop: { id: "shop_demo_barber" } },
  });
}

describe("npm start (the local launcher)", () => {
  let dataDir: string;
  beforeAll(async () => {
    dataDir = await mkdtemp(join(tmpdir(), "platform-local-"));
  });
  afterAll(async () => {
    await rm(dataDir, { recursive: true, force: true });
  });

  it("brings every service up, writes local.json, stops on Ctrl-C and keeps its data for the next start", {
    timeout: 180_000,
  }, async () => {
    const first = launch(dataDir);
    try {
      await waitFor(() => first.output().includes("Ctrl-C stops everything"), "the banner");
      const manifest = JSON.parse(await readFile(join(dataDir, "local.json"), "utf8")) as LocalManifest;
      expect((await stat(join(dataDir, "local.json"))).mode & 0o777).toBe(0o600);
      expect(Object.keys(manifest.services).sort()).toEqual(platformServices.map((s) => s.name).sort());
      const demo = manifest.credentials.demoWallet as { address: string; privateKey: string };
      expect(demo.privateKey).toMatch(/^0x[0-9a-f]{64}$/);
      expect(first.output()).toContain(demo.address);
      expect(first.output()).toContain(`Platform is up on Node.js ${process.versions.node}`);
      expect(first.output()).not.toContain(demo.privateKey.slice(2));
      for (const [name, service] of Object.entries(manifest.services)) {
        expect(first.output(), name).toContain(service.url);
        const health = await fetch(`${service.url}/healthz`);
        expect(health.status, name).toBe(200);
        expect((await fetch(service.docs)).status, name).toBe(200);
      }
      await expectGatewayToolsRun(manifest, first.output());
    } finally {
      first.child.kill("SIGINT");
    }
    expect(await first.exited).toBe(0);
    expect(first.output()).toContain("SIGINT received, shutting down");
    await withStoredDatabase(dataDir, (db) =>
      db.exec(
        "CREATE TABLE public.marker (note text); INSERT INTO public.marker VALUES ('left by the first run')",
      ),
    );

    const second = launch(dataDir);
    try {
      await waitFor(() => second.output().includes("Ctrl-C stops everything"), "the banner again");
      expect(second.output()).toContain("Platform is up");
    } finally {
      second.child.kill("SIGINT");
    }
    expect(await second.exited).toBe(0);
    const marker = await withStoredDatabase(dataDir, (db) => db.query("SELECT note FROM public.marker"));
    expect(marker).toEqual([{ note: "left by the first run" }]);
  });

  it("says what to change, without a stack trace, when the chain's port is taken", {
    timeout: 60_000,
  }, async () => {
    const blocker = createServer();
    await new Promise<void>((resolve) => blocker.listen(0, "127.0.0.1", resolve));
    const { port } = blocker.address() as AddressInfo;
    try {
      const run = launch(dataDir, { FORTUNE_CHAIN_PORT: String(port) });
      expect(await run.exited).toBe(1);
      expect(run.output()).toContain("Could not start");
      expect(run.output()).toContain("FORTUNE_CHAIN_PORT");
      expect(run.output()).not.toContain("    at ");
    } finally {
      blocker.close();
    }
  });

  it("refuses to start with an invalid setting, naming it", { timeout: 60_000 }, async () => {
    const run = launch(dataDir, { GATEWAY_PORT: "eighty" });
    expect(await run.exited).toBe(1);
    expect(run.output()).toContain("GATEWAY_PORT");
    expect(run.output()).not.toContain("    at ");
  });
});

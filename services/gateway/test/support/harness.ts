import type { Clock, Logger, ServiceApp } from "@app/core";
import type { Database } from "@app/db";
import { silentLogger } from "@app/testkit";
import { createApp } from "../../src/app.ts";
import { PROVIDERS } from "../../src/registry/providers.ts";
import { createRegistry } from "../../src/registry/registry.ts";
import type { ProviderDeclaration } from "../../src/registry/types.ts";
import type { GatewayDeps } from "../../src/runner/deps.ts";
import { buildGatewayDeps } from "../../src/service.ts";
import { AccountStore } from "../../src/store/accounts.ts";
import { credit } from "../../src/store/ledger.ts";
import type { UpstreamClient, UpstreamLimits } from "../../src/upstream/client.ts";
import { createUndiciUpstreamClient } from "../../src/upstream/undici-client.ts";

/** Where nothing listens (port 9, discard): the default for providers a test does not use. */
const NOWHERE = new URL("http://127.0.0.1:9");

export const TEST_LIMITS: UpstreamLimits = {
  connectTimeoutMs: 1_000,
  timeoutMs: 2_000,
  maxResponseBytes: 64 * 1024,
};

export type HarnessOptions = {
  /** Base URL of each provider, by id (default: nowhere). */
  urls?: Record<string, URL>;
  /** Providers besides the spec's (a priced tool, say). */
  extraProviders?: ProviderDeclaration[];
  /** Prices replacing the declared ones, by tool name, as `GATEWAY_TOOL_PRICES` sets them. */
  toolPrices?: ReadonlyMap<string, bigint>;
  limits?: Partial<UpstreamLimits>;
  runsPerMinute?: number;
  logger?: Logger;
  clock?: Clock;
  upstream?: UpstreamClient;
};

export type Harness = { app: ServiceApp; deps: GatewayDeps; close(): Promise<void> };

/** The gateway app on a test database, its real undici client aimed at the test's fake upstreams. */
export function gatewayHarness(db: Database, options: HarnessOptions = {}): Harness {
  const declarations = [...PROVIDERS, ...(options.extraProviders ?? [])];
  const urls = Object.fromEntries(
    declarations.map((provider) => [provider.id, options.urls?.[provider.id] ?? NOWHERE]),
  );
  const upstream = options.upstream ?? createUndiciUpstreamClient({ ...TEST_LIMITS, ...options.limits });
  const deps = buildGatewayDeps(db, options.logger ?? silentLogger(), {
    registry: createRegistry(declarations, urls, options.toolPrices),
    upstream,
    runsPerMinute: options.runsPerMinute ?? 300,
    clock: options.clock,
  });
  return {
    app: createApp(deps),
    deps,
    async close() {
      await deps.usage.flush();
      await deps.held.stop();
      await upstream.close();
    },
  };
}

export type TestAccount = { accountId: string; keyId: string; key: string };

/** An account with one key and `balanceMicro` of credit (none by default). */
export async function openAccount(db: Database, balanceMicro = 0n): Promise<TestAccount> {
  const accounts = new AccountStore(db);
  const account = await accounts.create("Test account");
  if (balanceMicro > 0n) await credit(db, account.id, balanceMicro);
  const issued = await accounts.issueKey(account.id, "test");
  return { accountId: account.id, keyId: issued.id, key: issued.key };
}

/** A JSON POST with the gateway key and any other headers. */
export function postJson(
  app: ServiceApp,
  path: string,
  body: unknown,
  headers: Record<string, string> = {},
): Promise<Response> {
  return Promise.resolve(
    app.request(path, {
      method: "POST",
      headers: { "content-type": "application/json", ...headers },
      body: JSON.stringify(body),
    }),
  );
}

export const bearer = (key: string) => ({ authorization: `Bearer ${key}` });

export { type FakeClock, fakeClock } from "@app/testkit";

/** Every row of every gateway table, as text: what a search for a leaked secret reads. */
export async function gatewayTablesAsText(db: Database): Promise<string> {
  const tables = await db.query<{ table_name: string }>(
    "SELECT table_name FROM information_schema.tables WHERE table_schema = 'gateway' ORDER BY table_name",
  );
  const dumps: string[] = [];
  for (const { table_name: table } of tables) {
    const rows = await db.query<{ row: string }>(`SELECT t::text AS row FROM gateway.${table} t`);
    dumps.push(`${table}:\n${rows.map((r) => r.row).join("\n")}`);
  }
  return dumps.join("\n");
}

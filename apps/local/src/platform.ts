import { randomBytes } from "node:crypto";
import { chmod, mkdir, readFile, writeFile } from "node:fs/promises";
import { isAbsolute, join, relative, resolve } from "node:path";
import {
  createLogger,
  type Env,
  isSecretName,
  loadConfig,
  routeConsoleTo,
  type Stoppable,
  settings,
  z,
} from "@app/core";
import { openDatabase } from "@app/db";
import {
  type BaseServiceConfig,
  type ServiceDefinition,
  type StartedService,
  startService,
} from "@app/runtime";
import { SANDBOX_APPS, seedDemos } from "./demos.ts";
import {
  type PublisherMediaWiring,
  wirePublisherMedia,
  withSandboxBlueskyNetwork,
} from "./sandbox-wiring.ts";

export const launcherVariables = z.object({
  DATABASE_URL: settings.databaseUrl(),
  DATA_DIR: settings.dataDir(),
});

/** What `.data/local.json` holds: where each service listens, the embedded database, the demo credentials. */
export type LocalManifest = {
  services: Record<string, { url: string; docs: string }>;
  /** Embedded mode only: where psql, the CLIs and extra workers reach the platform's PGlite. */
  database?: { url: string; psql: string };
  credentials: Record<string, unknown>;
};

export type RunningPlatform = Stoppable & { manifest: LocalManifest; manifestPath: string };

/**
 * Starts every service in one process on one database (PGlite under `DATA_DIR`
 * unless `DATABASE_URL` is set), then writes the manifest. Every service's config
 * is read before anything starts, so a bad setting stops the launch at once. The
 * publisher's media prefix is worked out first (`wirePublisherMedia`), so the sandbox
 * verifies it from its start.
 */
export async function startPlatform(
  definitions: ServiceDefinition<never>[],
  env: Env,
): Promise<RunningPlatform> {
  const launcher = loadConfig(launcherVariables, env);
  const media = await wirePublisherMedia(definitions, await localEnv(launcher.DATA_DIR, env));
  try {
    return await startWired(definitions, media, launcher);
  } finally {
    await media.release();
  }
}

async function startWired(
  definitions: ServiceDefinition<never>[],
  media: PublisherMediaWiring,
  launcher: z.infer<typeof launcherVariables>,
): Promise<RunningPlatform> {
  const { env } = media;
  const configs = definitions.map((definition) => definition.loadConfig(env) as BaseServiceConfig);
  routeConsoleTo(createLogger({ name: "console", level: configs[0]?.logLevel ?? "info" }));
  const db = await openDatabase(
    { url: launcher.DATABASE_URL, dataDir: launcher.DATA_DIR },
    { role: "owner", holder: "npm start" },
  );
  const started: StartedService[] = [];
  const stop = async () => {
    for (const service of started.reverse()) await service.stop();
    await db.close();
  };
  try {
    for (const [index, definition] of definitions.entries()) {
      const upstreams = withUpstreams(definition, env, started);
      const wired = media.wire(definition, withSandboxBlueskyNetwork(definition, upstreams, started));
      const config = wired === env ? configs[index] : definition.loadConfig(wired);
      // The publisher's pinned port is freed for the publisher to listen on.
      if (definition.name === "publisher") await media.release();
      started.push(await startService(definition, config as never, db));
    }
  } catch (error) {
    await stop();
    throw error;
  }
  const manifest: LocalManifest = { services: {}, credentials: {} };
  if (db.endpoint) manifest.database = { url: db.endpoint, psql: `psql '${db.endpoint}'` };
  for (const service of started) {
    manifest.services[service.name] = { url: service.url, docs: `${service.url}/docs` };
    Object.assign(manifest.credentials, service.credentials);
  }
  Object.assign(manifest.credentials, await seedDemos(db, manifest.services, env, manifest.credentials));
  await mkdir(launcher.DATA_DIR, { recursive: true });
  const manifestPath = join(launcher.DATA_DIR, "local.json");
  // It holds the demo wallet's private key: readable by its owner only.
  await writeFile(manifestPath, `${JSON.stringify(manifest, null, 2)}\n`, { mode: 0o600 });
  await chmod(manifestPath, 0o600);
  return { manifest, manifestPath, stop };
}

/** A copy of a credential without its secret fields (private keys, API keys, tokens), for the terminal. */
function withoutSecrets(value: unknown): unknown {
  if (typeof value !== "object" || value === null) return value;
  return Object.fromEntries(
    Object.entries(value).filter(([name]) => !isSecretName(name) && !/key$/i.test(name)),
  );
}

/** A shell expression reading one field of the manifest, so the commands print no secret. */
function fromManifest(manifestPath: string, field: string): string {
  const path = relative(process.cwd(), manifestPath);
  const shown = path.startsWith("..") || isAbsolute(path) ? resolve(manifestPath) : `./${path}`;
  return `$(node -p "require('${shown}').credentials.${field}")`;
}

/** The environment the services start with: the sandbox's demo apps and the local secrets, unless set. */
export async function localEnv(dataDir: string, env: Env): Promise<Env> {
  return { ...SANDBOX_APPS, ...(await localSecrets(dataDir)), ...env };
}

/** Secrets the embedded platform needs and nobody set: made once, kept under DATA_DIR (0600). */
const LOCAL_SECRETS = ["PUBLISHER_TOKEN_SECRET", "PUBLISHER_STORAGE_SECRET"] as const;

async function localSecrets(dataDir: string): Promise<Record<string, string>> {
  const path = join(dataDir, "local-secrets.json");
  const kept = JSON.parse(await readFile(path, "utf8").catch(() => "{}")) as Record<string, string>;
  const missing = LOCAL_SECRETS.filter((name) => !kept[name]);
  if (missing.length === 0) return kept;
  for (const name of missing) kept[name] = randomBytes(32).toString("hex");
  await mkdir(dataDir, { recursive: true });
  await writeFile(path, `${JSON.stringify(kept, null, 2)}\n`, { mode: 0o600 });
  await chmod(path, 0o600);
  return kept;
}

/**
 * The environment a service starts with: its upstreams' URL variables pointed at where the
 * services it calls listen (they start first), unless already set.
 */
export function withUpstreams(
  definition: Pick<ServiceDefinition<never>, "upstreams">,
  env: Env,
  started: { name: string; url: string }[],
): Env {
  const wiring = Object.entries(definition.upstreams ?? {}).filter(
    ([variable]) => env[variable] === undefined,
  );
  if (wiring.length === 0) return env;
  const urls = new Map(started.map((service) => [service.name, service.url]));
  return { ...env, ...Object.fromEntries(wiring.map(([variable, name]) => [variable, urls.get(name)])) };
}

/** The banner printed once everything listens. */
export function banner(platform: RunningPlatform, titles: Map<string, string>): string {
  const { manifest } = platform;
  const width = Math.max(...Object.keys(manifest.services).map((name) => (titles.get(name) ?? name).length));
  const lines = [
    "",
    `Platform is up on Node.js ${process.versions.node} (embedded mode: PGlite, local chain, sandbox; no network needed)`,
    "",
  ];
  for (const [name, service] of Object.entries(manifest.services)) {
    lines.push(`  ${(titles.get(name) ?? name).padEnd(width)}  ${service.url}   docs: ${service.docs}`);
  }
  if (manifest.database) {
    lines.push(
      "",
      `Embedded database (PGlite, owned by this process; the CLIs and extra workers connect through it):`,
      `  ${manifest.database.psql}`,
    );
  }
  lines.push("", `Demo credentials (private keys and other secrets: only in ${platform.manifestPath}):`);
  const credentials = Object.entries(manifest.credentials);
  if (credentials.length === 0) lines.push("  (none yet)");
  for (const [key, value] of credentials) lines.push(`  ${key}: ${JSON.stringify(withoutSecrets(value))}`);
  const first = manifest.services.fortune?.url ?? Object.values(manifest.services)[0]?.url;
  lines.push("", "Try:", `  curl -i -X POST ${first}/api/fortune`, `  npm run pay -- /api/fortune`);
  const gateway = manifest.services.gateway?.url;
  const markets = manifest.credentials.markets as { sampleRefs?: { slug?: string } } | undefined;
  if (gateway && markets?.sampleRefs?.slug) {
    const run = {
      provider: "markets",
      endpoint: "/pm/event",
      method: "GET",
      input: { queryParams: { ref: markets.sampleRefs.slug } },
    };
    lines.push(
      `  curl -s -X POST ${gateway}/v1/run -H "authorization: Bearer ${fromManifest(platform.manifestPath, "gateway.gatewayKey")}" \\`,
      `    -H 'content-type: application/json' -d '${JSON.stringify(run)}'`,
      "  (services/gateway/README.md: the same through MCP at /mcp, and the shop and post tools)",
      "  npm run pay -- gateway account   (a wallet's own gateway account, then `gateway credit 0.50`)",
    );
  }
  lines.push(
    "",
    `The same as JSON: ${platform.manifestPath}`,
    "Ctrl-C stops everything; data is kept for the next start.",
    "",
  );
  return lines.join("\n");
}

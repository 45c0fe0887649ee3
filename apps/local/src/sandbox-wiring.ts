import { createServer, type Server } from "node:net";
import type { Env } from "@app/core";

/** What the publisher's loaded settings say about where its media is served from. */
export type PublisherMediaSettings = {
  host: string;
  port: number;
  publicUrl?: string;
  storage?: { kind: string; publicUrl?: string };
};

/**
 * Where the publisher's media is served from, as TikTok must have verified it for PULL_FROM_URL:
 * the S3 bucket's public URL when its objects are served from there, else the publisher's public
 * URL (its `/media/…` routes), else where it listens; undefined while that is a port the system
 * has not chosen yet (0).
 */
export function publisherMediaPrefix(publisher: PublisherMediaSettings): string | undefined {
  const bucket = publisher.storage?.kind === "s3" ? publisher.storage.publicUrl : undefined;
  const listening = publisher.port === 0 ? undefined : `http://${publisher.host}:${publisher.port}`;
  const base = bucket ?? publisher.publicUrl ?? listening;
  return base ? `${base.replace(/\/+$/, "")}/` : undefined;
}

/**
 * A service's environment with the sandbox told that `prefix` (the publisher's media) is verified,
 * as a developer verifies their domain with TikTok: the sandbox's
 * `SANDBOX_TIKTOK_VERIFIED_URL_PREFIXES`, unless set, so the TikTok twin knows it from its start.
 */
export function withPublisherMediaVerified(
  definition: { name: string },
  env: Env,
  prefix: string | undefined,
): Env {
  if (definition.name !== "sandbox" || !prefix || env.SANDBOX_TIKTOK_VERIFIED_URL_PREFIXES !== undefined)
    return env;
  return { ...env, SANDBOX_TIKTOK_VERIFIED_URL_PREFIXES: prefix };
}

/** A free port held (listened on) until released. */
async function holdFreePort(host: string): Promise<{ port: number; server: Server }> {
  const server = createServer();
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen({ host, port: 0, exclusive: true }, resolve);
  });
  const address = server.address();
  if (typeof address !== "object" || address === null) throw new Error(`No port could be held on ${host}.`);
  return { port: address.port, server };
}

/** The publisher's media wired into the sandbox before either starts (see {@link wirePublisherMedia}). */
export type PublisherMediaWiring = {
  /** The environment every service starts from: `PUBLISHER_PORT` pinned when it was 0. */
  env: Env;
  /** A service's environment, the sandbox's with the publisher's media prefix verified. */
  wire(definition: { name: string }, env: Env): Env;
  /** Frees the pinned port: just before the publisher starts listening on it, or when the launch fails. */
  release(): Promise<void>;
};

/**
 * Makes the publisher's media prefix known before anything starts, so the sandbox's TikTok twin
 * verifies it from its first request: a TikTok photo post already due when the publisher's
 * workers start (they start before it listens) is pulled from a verified URL. The prefix comes
 * from the publisher's settings (public URL, bucket, host and port). When the system would choose
 * its port (0), a free one is chosen now, held until the publisher starts, and set as
 * `PUBLISHER_PORT`, so its URL is known ahead too. Without a sandbox or a publisher, nothing.
 */
export async function wirePublisherMedia(
  definitions: readonly { name: string; loadConfig(env: Env): unknown }[],
  env: Env,
): Promise<PublisherMediaWiring> {
  const publisher = definitions.find((definition) => definition.name === "publisher");
  const unwired = { env, wire: (_: { name: string }, same: Env) => same, release: async () => {} };
  if (!publisher || !definitions.some((definition) => definition.name === "sandbox")) return unwired;
  let settings: PublisherMediaSettings;
  try {
    settings = publisher.loadConfig(env) as PublisherMediaSettings;
  } catch {
    return unwired; // the launcher reports the bad setting when it reads every config
  }
  let held: Server | undefined;
  if (publisherMediaPrefix(settings) === undefined) {
    const free = await holdFreePort(settings.host);
    held = free.server;
    settings = { ...settings, port: free.port };
    env = { ...env, PUBLISHER_PORT: String(free.port) };
  }
  const prefix = publisherMediaPrefix(settings);
  return {
    env,
    wire: (definition, serviceEnv) => withPublisherMediaVerified(definition, serviceEnv, prefix),
    release: async () => {
      const server = held;
      held = undefined;
      if (server) await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

type SandboxBluesky = { plcUrl?: string; service?: string };

/**
 * The publisher's Bluesky identity settings when it publishes to the sandbox: the sandbox's PLC
 * directory, and its second PDS trusted on loopback (a real PDS must be https on a public
 * address), so an account there connects as a self-hosted one would. Set variables win.
 */
export function withSandboxBlueskyNetwork(
  definition: { name: string },
  env: Env,
  started: { name: string; credentials: Record<string, unknown> }[],
): Env {
  const sandbox = started.find((service) => service.name === "sandbox");
  if (definition.name !== "publisher" || !sandbox || env.PUBLISHER_PLATFORM_URL === undefined) return env;
  const main = sandbox.credentials.sandboxBluesky as SandboxBluesky | undefined;
  const selfHosted = sandbox.credentials.sandboxBlueskySelfHosted as SandboxBluesky | undefined;
  const wiring: Env = {};
  if (env.PUBLISHER_BLUESKY_PLC_URL === undefined && main?.plcUrl)
    wiring.PUBLISHER_BLUESKY_PLC_URL = main.plcUrl;
  if (env.PUBLISHER_BLUESKY_TRUSTED_PDS_ORIGINS === undefined && selfHosted?.service) {
    wiring.PUBLISHER_BLUESKY_TRUSTED_PDS_ORIGINS = selfHosted.service;
  }
  return Object.keys(wiring).length === 0 ? env : { ...env, ...wiring };
}

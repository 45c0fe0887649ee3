import type { Env } from "@app/core";

type Listening = Record<string, { url: string }>;

/**
 * Where the publisher's media is served from, as TikTok must have verified it for PULL_FROM_URL:
 * the S3 bucket's public URL when one is set, else the publisher's public URL (its `/media/…`
 * routes), else where it listens.
 */
export function publisherMediaPrefix(services: Listening, env: Env): string | undefined {
  const base = env.PUBLISHER_S3_PUBLIC_URL ?? env.PUBLISHER_PUBLIC_URL ?? services.publisher?.url;
  return base ? `${base.replace(/\/+$/, "")}/` : undefined;
}

/**
 * Tells the sandbox's TikTok twin that the publisher's media prefix is verified (as a developer
 * verifies their domain with TikTok), on whatever port the publisher listens, unless
 * `SANDBOX_TIKTOK_VERIFIED_URL_PREFIXES` says otherwise.
 */
export async function verifyPublisherMediaWithSandbox(services: Listening, env: Env): Promise<void> {
  const sandbox = services.sandbox?.url;
  const prefix = publisherMediaPrefix(services, env);
  if (!sandbox || !prefix || env.SANDBOX_TIKTOK_VERIFIED_URL_PREFIXES !== undefined) return;
  const res = await fetch(`${sandbox}/_sandbox/settings`, {
    method: "PATCH",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ tiktokVerifiedUrlPrefixes: [prefix] }),
  });
  if (!res.ok) throw new Error(`The sandbox refused the publisher's media prefix ${prefix} (${res.status}).`);
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

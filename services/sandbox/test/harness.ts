import { createHash, randomBytes } from "node:crypto";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { type Clock, type RunningServer, serveApp } from "@app/core";
import type { Database } from "@app/db";
import { silentLogger } from "@app/testkit";
import { createSandbox } from "../src/app.ts";
import { serveBlueskyNetwork } from "../src/bluesky/listeners.ts";
import { defaultSandboxSettings, type SandboxSettings } from "../src/config.ts";
import type { SandboxContext } from "../src/context.ts";
import { DEMO_GOOGLE, DEMO_TIKTOK } from "../src/demo.ts";
import { pkceS256 } from "../src/kit/oauth-grants.ts";
import { tiktokPkceChallenge } from "../src/tiktok/pkce.ts";

/** The sandbox keeps no state in its database: readiness only pings it, which tests do not call. */
const noDatabase = { query: async () => [] } as unknown as Database;

export type Sandbox = { url: string; context: SandboxContext; close(): Promise<void> };

/** The sandbox served on a loopback port, called with plain fetch as a real client would. */
export async function startSandbox(adjust: (settings: SandboxSettings) => void = () => {}): Promise<Sandbox> {
  const settings = defaultSandboxSettings();
  adjust(settings);
  const { app, context } = createSandbox({ db: noDatabase, logger: silentLogger(), settings });
  const server: RunningServer = await serveApp(app as never, { host: "127.0.0.1", port: 0 });
  return { url: server.url, context, close: () => server.close() };
}

export const GOOGLE_REDIRECT = "http://127.0.0.1:4567/oauth/youtube/callback";
export const TIKTOK_REDIRECT = "http://127.0.0.1:4567/oauth/tiktok/callback";

/** The query of a redirect's Location. */
export function locationParams(res: Response): URLSearchParams {
  const location = res.headers.get("location");
  if (!location) throw new Error(`no Location (status ${res.status})`);
  return new URL(location).searchParams;
}

export const form = (fields: Record<string, string>) => ({
  method: "POST",
  headers: { "content-type": "application/x-www-form-urlencoded" },
  body: new URLSearchParams(fields).toString(),
  redirect: "manual" as const,
});

export const postJson = (body: unknown, token?: string): RequestInit => ({
  method: "POST",
  headers: {
    "content-type": "application/json; charset=UTF-8",
    ...(token ? { authorization: `Bearer ${token}` } : {}),
  },
  body: typeof body === "string" ? body : JSON.stringify(body),
});

/** Submits Google's consent form for an account and returns the redirect's parameters. */
export async function googleConsent(
  url: string,
  options: { account?: string; offline?: boolean; prompt?: string; state?: string; verifier?: string } = {},
): Promise<URLSearchParams> {
  const fields: Record<string, string> = {
    client_id: DEMO_GOOGLE.clientId,
    redirect_uri: GOOGLE_REDIRECT,
    response_type: "code",
    scope: DEMO_GOOGLE.uploadScope,
    state: options.state ?? "st-1",
    decision: "allow",
    account: options.account ?? DEMO_GOOGLE.accounts.creator.id,
  };
  if (options.offline !== false) fields.access_type = "offline";
  if (options.prompt) fields.prompt = options.prompt;
  if (options.verifier)
    Object.assign(fields, { code_challenge: pkceS256(options.verifier), code_challenge_method: "S256" });
  return locationParams(await fetch(`${url}/o/oauth2/v2/auth/approve`, form(fields)));
}

/** A Google access (and refresh) token for an account, through consent and the token endpoint. */
export async function googleTokens(url: string, account?: string) {
  const code = (await googleConsent(url, { account })).get("code") ?? "";
  const res = await fetch(
    `${url}/token`,
    form({
      grant_type: "authorization_code",
      code,
      client_id: DEMO_GOOGLE.clientId,
      client_secret: DEMO_GOOGLE.clientSecret,
      redirect_uri: GOOGLE_REDIRECT,
    }),
  );
  return (await res.json()) as { access_token: string; refresh_token?: string; expires_in: number };
}

/** TikTok tokens for a creator, through Login Kit consent (with PKCE) and the token endpoint. */
export async function tiktokTokens(
  url: string,
  openId: string = DEMO_TIKTOK.creators.public.openId,
  scopes: readonly string[] = DEMO_TIKTOK.scopes,
) {
  const verifier = randomBytes(32).toString("base64url");
  const redirect = locationParams(
    await fetch(
      `${url}/v2/auth/authorize/approve/`,
      form({
        client_key: DEMO_TIKTOK.clientKey,
        redirect_uri: TIKTOK_REDIRECT,
        response_type: "code",
        scope: scopes.join(","),
        state: "t1",
        code_challenge: tiktokPkceChallenge(verifier),
        code_challenge_method: "S256",
        decision: "allow",
        account: openId,
      }),
    ),
  );
  const res = await fetch(
    `${url}/v2/oauth/token/`,
    form({
      client_key: DEMO_TIKTOK.clientKey,
      client_secret: DEMO_TIKTOK.clientSecret,
      code: redirect.get("code") ?? "",
      grant_type: "authorization_code",
      redirect_uri: TIKTOK_REDIRECT,
      code_verifier: verifier,
    }),
  );
  return (await res.json()) as { access_token: string; refresh_token: string; open_id: string };
}

/** Deterministic bytes for an upload, and their SHA-256. */
export function mediaBytes(size: number, seed = 1): { bytes: Buffer; sha256: string } {
  const bytes = Buffer.alloc(size);
  for (let index = 0; index < size; index += 1) bytes[index] = (index * 31 + seed) & 255;
  return { bytes, sha256: createHash("sha256").update(bytes).digest("hex") };
}

/** A tiny media host on loopback (what the publisher's public media URLs are in tests). */
export async function startMediaHost(
  files: Record<string, { type: string; bytes: Buffer }>,
): Promise<{ url: string; close(): Promise<void> }> {
  const server: Server = createServer((req, res) => {
    const file = files[req.url ?? ""];
    if (!file) {
      res.writeHead(404).end();
      return;
    }
    res.writeHead(200, { "content-type": file.type, "content-length": file.bytes.length }).end(file.bytes);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

/** The sandbox with its Bluesky network: the default PDS (the sandbox's URL), the PLC directory and the second PDS. */
export type SandboxNetwork = Sandbox & { plcUrl: string; pds2Url: string };

/**
 * The sandbox served on loopback with the PLC directory and the second PDS on their own free
 * ports, as the service starts them; `clock` replaces the system clock (token lifetimes, grace).
 */
export async function startSandboxNetwork(
  adjust: (settings: SandboxSettings) => void = () => {},
  options: { clock?: Clock } = {},
): Promise<SandboxNetwork> {
  const settings = defaultSandboxSettings();
  adjust(settings);
  const sandbox = createSandbox({ db: noDatabase, logger: silentLogger(), settings, clock: options.clock });
  const server: RunningServer = await serveApp(sandbox.app as never, { host: "127.0.0.1", port: 0 });
  sandbox.bluesky.network.origins.default = server.url;
  const listeners = await serveBlueskyNetwork(sandbox.bluesky, {
    host: "127.0.0.1",
    plcPort: 0,
    pds2Port: 0,
  });
  return {
    url: server.url,
    plcUrl: listeners.plcUrl,
    pds2Url: listeners.pds2Url,
    context: sandbox.context,
    close: async () => {
      await Promise.all([server.close(), listeners.close()]);
    },
  };
}

/** A clock a test moves by hand. */
export function manualClock(
  start = new Date("2026-11-22T10:00:00.000Z"),
): Clock & { advance(ms: number): void } {
  let now = start.getTime();
  return {
    now: () => new Date(now),
    advance: (ms: number) => {
      now += ms;
    },
  };
}

/** A Bluesky session (createSession's answer) on a PDS of the sandbox. */
export async function blueskySession(
  service: string,
  account: { handle: string; appPassword: string },
): Promise<{ accessJwt: string; refreshJwt: string; did: string; handle: string }> {
  const res = await fetch(
    `${service}/xrpc/com.atproto.server.createSession`,
    postJson({ identifier: account.handle, password: account.appPassword }),
  );
  if (res.status !== 200) throw new Error(`createSession answered ${res.status}: ${await res.text()}`);
  return (await res.json()) as { accessJwt: string; refreshJwt: string; did: string; handle: string };
}

/** Deterministic media bytes that start with a real file signature, so a PDS sniffs their type. */
export function mediaFile(
  kind: "jpeg" | "png" | "gif" | "webp" | "mp4" | "mov",
  size: number,
  seed = 1,
): Buffer {
  const { bytes } = mediaBytes(size, seed);
  const heads: Record<typeof kind, number[]> = {
    jpeg: [0xff, 0xd8, 0xff, 0xe0],
    png: [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a],
    gif: [...Buffer.from("GIF89a")],
    webp: [...Buffer.from("RIFF"), 0, 0, 0, 0, ...Buffer.from("WEBPVP8 ")],
    mp4: [0, 0, 0, 0x18, ...Buffer.from("ftypisom")],
    mov: [0, 0, 0, 0x14, ...Buffer.from("ftypqt  ")],
  };
  Buffer.from(heads[kind]).copy(bytes, 0);
  return bytes;
}

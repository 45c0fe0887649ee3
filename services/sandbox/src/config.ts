import { type Env, loadConfig, settings, z } from "@app/core";
import { type BaseServiceConfig, baseSettings, toBaseConfig } from "@app/runtime";

const seconds = (fallback: number) => settings.positiveInt(fallback, 400 * 86_400);
const count = (fallback: number) => settings.positiveInt(fallback, 1_000_000);
/** A comma-separated list of absolute http(s) URLs (a redirect URI may use `*` as its port on loopback). */
const urlList = (fallback: string[]) =>
  z
    .string()
    .default(fallback.join(","))
    .transform((value) =>
      value
        .split(",")
        .map((item) => item.trim())
        .filter(Boolean),
    )
    .pipe(z.array(z.string().regex(/^https?:\/\/[^\s]+$/, "must be http(s) URLs")).min(1));

const loopbackCallbacks = (platform: string) => [
  `http://127.0.0.1:*/oauth/${platform}/callback`,
  `http://localhost:*/oauth/${platform}/callback`,
];

const variables = z.object({
  ...baseSettings("SANDBOX", 3006),
  SANDBOX_GOOGLE_REDIRECT_URIS: urlList(loopbackCallbacks("youtube")),
  SANDBOX_GOOGLE_ACCESS_TOKEN_TTL_SECONDS: seconds(3599),
  SANDBOX_GOOGLE_ROTATE_REFRESH_TOKENS: settings.boolean(false),
  SANDBOX_YOUTUBE_UPLOADS_PER_DAY: count(100),
  SANDBOX_YOUTUBE_SESSION_TTL_SECONDS: seconds(7 * 86_400),
  SANDBOX_TIKTOK_REDIRECT_URIS: urlList(loopbackCallbacks("tiktok")),
  SANDBOX_TIKTOK_ACCESS_TOKEN_TTL_SECONDS: seconds(2 * 3600),
  SANDBOX_TIKTOK_REFRESH_TOKEN_TTL_SECONDS: seconds(180 * 86_400),
  SANDBOX_TIKTOK_VERIFIED_URL_PREFIXES: urlList(["http://127.0.0.1:3002/", "http://localhost:3002/"]),
  SANDBOX_TIKTOK_INIT_PER_MINUTE: count(6),
  SANDBOX_TIKTOK_STATUS_PER_MINUTE: count(30),
  SANDBOX_TIKTOK_CREATOR_INFO_PER_MINUTE: count(20),
  SANDBOX_TIKTOK_PROCESSING_POLLS: z.coerce.number().int().min(0).max(1000).default(1),
  SANDBOX_TIKTOK_PULL_TIMEOUT_SECONDS: seconds(30),
  SANDBOX_BLUESKY_ACCESS_TOKEN_TTL_SECONDS: seconds(7200),
  SANDBOX_BLUESKY_BLOB_LIMIT_BYTES: settings.positiveInt(100_000_000, 2 ** 40),
  SANDBOX_BLUESKY_SESSIONS_PER_5_MINUTES: count(30),
  SANDBOX_BLUESKY_REFRESH_GRACE_SECONDS: seconds(7200),
  SANDBOX_PLC_PORT: z.coerce.number().int().min(0).max(65_535).optional(),
  SANDBOX_PDS2_PORT: z.coerce.number().int().min(0).max(65_535).optional(),
  SANDBOX_REQUEST_LOG_SIZE: count(1000),
});

/** What the twins do, set once at start (a few of them change at run time through `/_sandbox/settings`). */
export type SandboxSettings = {
  google: {
    redirectUris: string[];
    accessTokenTtlSeconds: number;
    rotateRefreshTokens: boolean;
    uploadsPerDay: number;
    sessionTtlSeconds: number;
  };
  tiktok: {
    redirectUris: string[];
    accessTokenTtlSeconds: number;
    refreshTokenTtlSeconds: number;
    verifiedUrlPrefixes: string[];
    initPerMinute: number;
    statusPerMinute: number;
    /** creator_info/query calls per token a minute ("Each user access_token is limited to 20 requests per minute"). */
    creatorInfoPerMinute: number;
    /** Status fetches that still answer PROCESSING_* once the media has arrived. */
    processingPolls: number;
    pullTimeoutSeconds: number;
  };
  bluesky: {
    accessTokenTtlSeconds: number;
    blobLimitBytes: number;
    sessionsPerFiveMinutes: number;
    /** How long a rotated refresh token still refreshes (a PDS's `REFRESH_GRACE_MS`, 2 h). */
    refreshGraceSeconds: number;
    /** Ports of the PLC directory and the second PDS (0: a free one). */
    plcPort: number;
    pds2Port: number;
  };
  requestLogSize: number;
};

export type SandboxConfig = BaseServiceConfig & { sandbox: SandboxSettings };

/** The default port of an extra Bluesky listener: next to the sandbox's, or a free one when the sandbox's is. */
const besideSandbox = (sandboxPort: number, offset: number) => (sandboxPort === 0 ? 0 : sandboxPort + offset);

/** Reads the sandbox service's settings from the environment, once, failing fast on bad values. */
export function loadSandboxConfig(env: Env): SandboxConfig {
  const parsed = loadConfig(variables, env, { prefixes: ["SANDBOX_"] });
  return {
    ...toBaseConfig(parsed, parsed.SANDBOX_PORT),
    sandbox: {
      google: {
        redirectUris: parsed.SANDBOX_GOOGLE_REDIRECT_URIS,
        accessTokenTtlSeconds: parsed.SANDBOX_GOOGLE_ACCESS_TOKEN_TTL_SECONDS,
        rotateRefreshTokens: parsed.SANDBOX_GOOGLE_ROTATE_REFRESH_TOKENS,
        uploadsPerDay: parsed.SANDBOX_YOUTUBE_UPLOADS_PER_DAY,
        sessionTtlSeconds: parsed.SANDBOX_YOUTUBE_SESSION_TTL_SECONDS,
      },
      tiktok: {
        redirectUris: parsed.SANDBOX_TIKTOK_REDIRECT_URIS,
        accessTokenTtlSeconds: parsed.SANDBOX_TIKTOK_ACCESS_TOKEN_TTL_SECONDS,
        refreshTokenTtlSeconds: parsed.SANDBOX_TIKTOK_REFRESH_TOKEN_TTL_SECONDS,
        verifiedUrlPrefixes: parsed.SANDBOX_TIKTOK_VERIFIED_URL_PREFIXES,
        initPerMinute: parsed.SANDBOX_TIKTOK_INIT_PER_MINUTE,
        statusPerMinute: parsed.SANDBOX_TIKTOK_STATUS_PER_MINUTE,
        creatorInfoPerMinute: parsed.SANDBOX_TIKTOK_CREATOR_INFO_PER_MINUTE,
        processingPolls: parsed.SANDBOX_TIKTOK_PROCESSING_POLLS,
        pullTimeoutSeconds: parsed.SANDBOX_TIKTOK_PULL_TIMEOUT_SECONDS,
      },
      bluesky: {
        accessTokenTtlSeconds: parsed.SANDBOX_BLUESKY_ACCESS_TOKEN_TTL_SECONDS,
        blobLimitBytes: parsed.SANDBOX_BLUESKY_BLOB_LIMIT_BYTES,
        sessionsPerFiveMinutes: parsed.SANDBOX_BLUESKY_SESSIONS_PER_5_MINUTES,
        refreshGraceSeconds: parsed.SANDBOX_BLUESKY_REFRESH_GRACE_SECONDS,
        plcPort: parsed.SANDBOX_PLC_PORT ?? besideSandbox(parsed.SANDBOX_PORT, 1),
        pds2Port: parsed.SANDBOX_PDS2_PORT ?? besideSandbox(parsed.SANDBOX_PORT, 2),
      },
      requestLogSize: parsed.SANDBOX_REQUEST_LOG_SIZE,
    },
  };
}

/** The settings with no variable set: what tests start from. */
export function defaultSandboxSettings(): SandboxSettings {
  return loadSandboxConfig({}).sandbox;
}

/**
 * The sandbox's seeded apps and accounts: fixed values, local use only (the launcher, the
 * publisher's tests and this service's tests import them; production code never does).
 */

/** The demo Google Cloud OAuth client and the accounts that can sign in with it. */
export const DEMO_GOOGLE = {
  clientId: "sandbox-demo-client.apps.googleusercontent.com",
  clientSecret: "GOCSPX-sandbox-demo-client-secret",
  /** The scope a YouTube upload needs. */
  uploadScope: "https://www.googleapis.com/auth/youtube.upload",
  accounts: {
    /** Owns a YouTube channel: uploads work. */
    creator: {
      id: "109876543210987654321",
      email: "sandbox.creator@example.com",
      name: "Sandbox Creator",
      channel: { id: "UCsandboxDemoChannel00001", title: "Sandbox Demo Channel", customUrl: "@sandboxdemo" },
    },
    /** A Google account with no YouTube channel: uploads fail with `youtubeSignupRequired`. */
    noChannel: {
      id: "109876543210987654322",
      email: "sandbox.nochannel@example.com",
      name: "No Channel",
      channel: null,
    },
  },
} as const;

/** A TikTok creator as `creator_info/query` describes them. */
export type TikTokCreator = {
  openId: string;
  username: string;
  nickname: string;
  avatarUrl: string;
  privacyLevelOptions: readonly string[];
  commentDisabled: boolean;
  duetDisabled: boolean;
  stitchDisabled: boolean;
  maxVideoPostDurationSec: number;
};

/** The demo TikTok developer app and the creators that can authorise it. */
export const DEMO_TIKTOK = {
  clientKey: "sbawsandboxdemo01",
  clientSecret: "sandbox-demo-tiktok-client-secret",
  scopes: ["user.info.basic", "video.publish", "video.upload"],
  creators: {
    /** A public account: every privacy level, interactions on. */
    public: {
      openId: "-000sandboxPublicCreator",
      username: "sandbox.public",
      nickname: "Sandbox Public",
      avatarUrl: "https://example.com/avatars/sandbox-public.jpg",
      privacyLevelOptions: [
        "PUBLIC_TO_EVERYONE",
        "MUTUAL_FOLLOW_FRIENDS",
        "FOLLOWER_OF_CREATOR",
        "SELF_ONLY",
      ],
      commentDisabled: false,
      duetDisabled: false,
      stitchDisabled: false,
      maxVideoPostDurationSec: 600,
    },
    /** A private account: only SELF_ONLY, so the spec's default PUBLIC_TO_EVERYONE is refused. */
    private: {
      openId: "-000sandboxPrivateCreator",
      username: "sandbox.private",
      nickname: "Sandbox Private",
      avatarUrl: "https://example.com/avatars/sandbox-private.jpg",
      privacyLevelOptions: ["SELF_ONLY"],
      commentDisabled: true,
      duetDisabled: true,
      stitchDisabled: true,
      maxVideoPostDurationSec: 60,
    },
  } satisfies Record<string, TikTokCreator>,
} as const;

/** The demo Bluesky account on the sandbox's PDS twin (the default PDS, as on bsky.social). */
export const DEMO_BLUESKY = {
  handle: "sandbox-demo.bsky.test",
  did: "did:plc:sandboxdemoaaaaaaaaaaaaa",
  email: "sandbox-demo@example.com",
  /** The account password (createSession accepts it as well as the app password). */
  password: "sandbox-demo-account-password",
  /** An app password, as a publisher should use. */
  appPassword: "sbxd-emo0-app0-pass",
} as const;

/**
 * A demo Bluesky account on the sandbox's second PDS (a self-hosted PDS): its DID document in
 * the sandbox's PLC directory names that PDS, and only that PDS signs it in.
 */
export const DEMO_BLUESKY_SELF_HOSTED = {
  handle: "self-hosted-demo.pds2.test",
  did: "did:plc:selfhosteddemoaaaaaaaaaa",
  email: "self-hosted-demo@example.com",
  password: "self-hosted-demo-account-password",
  appPassword: "pds2-demo-app0-pass",
} as const;

/** Where the sandbox's Bluesky network listens besides its main URL (known once they listen). */
export type BlueskyNetworkUrls = { plcUrl: string; pds2Url: string };

/**
 * What the launcher prints and writes to `.data/local.json` for the sandbox: one object per
 * platform, so the banner's filter drops each secret (`clientSecret`, `appPassword`).
 */
export function demoCredentials(
  sandboxUrl: string,
  network?: BlueskyNetworkUrls,
): Record<string, Record<string, unknown>> {
  return {
    sandboxYouTube: {
      clientId: DEMO_GOOGLE.clientId,
      clientSecret: DEMO_GOOGLE.clientSecret,
      authorizeUrl: `${sandboxUrl}/o/oauth2/v2/auth`,
      tokenUrl: `${sandboxUrl}/token`,
      uploadBase: sandboxUrl,
      channel: DEMO_GOOGLE.accounts.creator.channel.title,
    },
    sandboxTikTok: {
      clientKey: DEMO_TIKTOK.clientKey,
      clientSecret: DEMO_TIKTOK.clientSecret,
      authorizeUrl: `${sandboxUrl}/v2/auth/authorize/`,
      apiBase: sandboxUrl,
      creators: Object.values(DEMO_TIKTOK.creators).map((creator) => creator.username),
    },
    sandboxBluesky: {
      service: sandboxUrl,
      handle: DEMO_BLUESKY.handle,
      appPassword: DEMO_BLUESKY.appPassword,
      ...(network ? { plcUrl: network.plcUrl } : {}),
    },
    ...(network
      ? {
          sandboxBlueskySelfHosted: {
            service: network.pds2Url,
            plcUrl: network.plcUrl,
            handle: DEMO_BLUESKY_SELF_HOSTED.handle,
            appPassword: DEMO_BLUESKY_SELF_HOSTED.appPassword,
          },
        }
      : {}),
  };
}

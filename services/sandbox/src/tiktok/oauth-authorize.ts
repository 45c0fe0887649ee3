import type { ServiceApp } from "@app/core";
import type { SandboxContext } from "../context.ts";
import { DEMO_TIKTOK } from "../demo.ts";
import { type AuthorizeCheck, mountConsentFlow } from "../kit/consent-flow.ts";
import { isRegisteredRedirectUri, redirectWith } from "../kit/redirect-uris.ts";
import { tiktokOAuthErrors } from "./errors.ts";

const AUTHORIZE_PATH = "/v2/auth/authorize/";
const APPROVE_PATH = "/v2/auth/authorize/approve/";

type Checked = AuthorizeCheck;

/** Checks a Login Kit authorize request: client key, registered redirect URI, scopes, PKCE method. */
function checkAuthorizeRequest(params: URLSearchParams, ctx: SandboxContext): Checked {
  if (params.get("client_key") !== DEMO_TIKTOK.clientKey) {
    return { kind: "page", status: 400, error: "client_key", detail: "The client_key is not valid." };
  }
  const redirectUri = params.get("redirect_uri") ?? "";
  if (!isRegisteredRedirectUri(redirectUri, ctx.settings.tiktok.redirectUris)) {
    return {
      kind: "page",
      status: 400,
      error: "redirect_uri",
      detail: "The redirect_uri is not registered for this app.",
    };
  }
  const state = params.get("state") ?? undefined;
  const back = (error: string, description: string): Checked => ({
    kind: "redirect",
    location: redirectWith(redirectUri, { error, error_description: description, state }),
  });
  if (params.get("response_type") !== "code") return back("invalid_request", "response_type must be code.");
  const scopes = (params.get("scope") ?? "")
    .split(",")
    .map((scope) => scope.trim())
    .filter(Boolean);
  const allowed: readonly string[] = DEMO_TIKTOK.scopes;
  if (scopes.length === 0 || scopes.some((scope) => !allowed.includes(scope))) {
    return back("invalid_scope", "The scope is not valid or not approved for this app.");
  }
  const challenge = params.get("code_challenge");
  if (challenge !== null && params.get("code_challenge_method") !== "S256") {
    return back("invalid_request", "code_challenge_method must be S256.");
  }
  return { kind: "ok", params, redirectUri, scopes };
}

/** `GET /v2/auth/authorize/` (TikTok Login Kit's consent page) and its form's submission. */
export function registerTikTokAuthorize(app: ServiceApp, ctx: SandboxContext): void {
  mountConsentFlow(app, ctx.kit, {
    platform: "tiktok",
    platformName: "TikTok",
    authorizePath: AUTHORIZE_PATH,
    approvePath: APPROVE_PATH,
    summaries: {
      page: "TikTok Login Kit consent page: choose a creator, allow or deny",
      approve: "The consent form's submission: redirects with `code`, `scopes` and `state`",
    },
    errors: tiktokOAuthErrors,
    check: (params) => checkAuthorizeRequest(params, ctx),
    accounts: Object.values(DEMO_TIKTOK.creators).map((creator) => ({
      id: creator.openId,
      label: `@${creator.username} (${creator.privacyLevelOptions.includes("PUBLIC_TO_EVERYONE") ? "public" : "private"} account)`,
    })),
    unknownAccount: { error: "account", detail: "Choose one of the listed creators." },
    denied: (state) => ({ error: "access_denied", error_description: "The user denied access.", state }),
    grant: (form, checked, accountId) => {
      const challenge = form.get("code_challenge");
      const code = ctx.tiktok.grants.issueCode("", {
        clientId: DEMO_TIKTOK.clientKey,
        accountId,
        redirectUri: checked.redirectUri,
        scopes: checked.scopes,
        codeChallenge: challenge,
        codeChallengeMethod: challenge ? "S256" : null,
        offline: true,
        promptConsent: false,
      });
      return { code, scopes: checked.scopes.join(",") };
    },
  });
}

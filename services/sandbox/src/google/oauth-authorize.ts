import type { ServiceApp } from "@app/core";
import type { SandboxContext } from "../context.ts";
import { DEMO_GOOGLE } from "../demo.ts";
import { type AuthorizeCheck, mountConsentFlow } from "../kit/consent-flow.ts";
import { isRegisteredRedirectUri, redirectWith } from "../kit/redirect-uris.ts";
import { googleOAuthErrors } from "./errors.ts";

const AUTHORIZE_PATH = "/o/oauth2/v2/auth";
const APPROVE_PATH = "/o/oauth2/v2/auth/approve";

type Checked = AuthorizeCheck;

/**
 * Checks an authorize request as Google does: an unknown client or an unregistered redirect URI
 * is shown as an error page (never redirected); other problems go back to the redirect URI as
 * `error=…` with `state`.
 */
function checkAuthorizeRequest(params: URLSearchParams, ctx: SandboxContext): Checked {
  if (params.get("client_id") !== DEMO_GOOGLE.clientId) {
    return { kind: "page", status: 401, error: "invalid_client", detail: "The OAuth client was not found." };
  }
  const redirectUri = params.get("redirect_uri") ?? "";
  if (!isRegisteredRedirectUri(redirectUri, ctx.settings.google.redirectUris)) {
    return {
      kind: "page",
      status: 400,
      error: "redirect_uri_mismatch",
      detail: `The redirect URI in the request, ${redirectUri || "(none)"}, does not match the ones authorized for the OAuth client.`,
    };
  }
  const state = params.get("state") ?? undefined;
  const back = (error: string, description: string): Checked => ({
    kind: "redirect",
    location: redirectWith(redirectUri, { error, error_description: description, state }),
  });
  if (params.get("response_type") !== "code") {
    return back("unsupported_response_type", "Only response_type=code is supported.");
  }
  const scopes = (params.get("scope") ?? "").split(" ").filter(Boolean);
  if (scopes.length === 0) return back("invalid_request", "Missing required parameter: scope");
  const method = params.get("code_challenge_method");
  if (params.get("code_challenge") && method !== null && method !== "S256" && method !== "plain") {
    return back("invalid_request", "Invalid code_challenge_method.");
  }
  return { kind: "ok", params, redirectUri, scopes };
}

/** `GET /o/oauth2/v2/auth` (the consent page) and `POST /o/oauth2/v2/auth/approve` (its form). */
export function registerGoogleAuthorize(app: ServiceApp, ctx: SandboxContext): void {
  mountConsentFlow(app, ctx.kit, {
    platform: "google",
    platformName: "Google",
    authorizePath: AUTHORIZE_PATH,
    approvePath: APPROVE_PATH,
    summaries: {
      page: "Google's consent screen: choose an account, allow or deny",
      approve: "The consent form's submission: redirects to the client with `code` and `state`",
    },
    errors: googleOAuthErrors,
    check: (params) => checkAuthorizeRequest(params, ctx),
    accounts: Object.values(DEMO_GOOGLE.accounts).map((account) => ({
      id: account.id,
      label: `${account.name} <${account.email}>${account.channel ? ` (YouTube: ${account.channel.title})` : " (no YouTube channel)"}`,
    })),
    unknownAccount: { error: "invalid_request", detail: "Choose one of the listed accounts." },
    denied: (state) => ({ error: "access_denied", state }),
    grant: (form, checked, accountId) => {
      const challenge = form.get("code_challenge");
      const code = ctx.google.grants.issueCode("4/0Asb", {
        clientId: DEMO_GOOGLE.clientId,
        accountId,
        redirectUri: checked.redirectUri,
        scopes: checked.scopes,
        codeChallenge: challenge,
        codeChallengeMethod: challenge ? (form.get("code_challenge_method") ?? "plain") : null,
        offline: form.get("access_type") === "offline",
        promptConsent: (form.get("prompt") ?? "").split(" ").includes("consent"),
      });
      return { code, scope: checked.scopes.join(" ") };
    },
  });
}

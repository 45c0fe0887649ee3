import type { ServiceApp } from "@app/core";
import type { Context } from "hono";
import type { SandboxContext } from "../context.ts";
import { DEMO_TIKTOK } from "../demo.ts";
import { readForm } from "../kit/bodies.ts";
import { renderConsentPage, renderErrorPage } from "../kit/consent-page.ts";
import { mountOperation } from "../kit/operations.ts";
import { isRegisteredRedirectUri, redirectWith } from "../kit/redirect-uris.ts";
import { tiktokOAuthErrors } from "./errors.ts";

const AUTHORIZE_PATH = "/v2/auth/authorize/";
const APPROVE_PATH = "/v2/auth/authorize/approve/";

type Checked =
  | { kind: "page"; error: string; detail: string }
  | { kind: "redirect"; location: string }
  | { kind: "ok"; params: URLSearchParams; redirectUri: string; scopes: string[] };

/** Checks a Login Kit authorize request: client key, registered redirect URI, scopes, PKCE method. */
function checkAuthorizeRequest(params: URLSearchParams, ctx: SandboxContext): Checked {
  if (params.get("client_key") !== DEMO_TIKTOK.clientKey) {
    return { kind: "page", error: "client_key", detail: "The client_key is not valid." };
  }
  const redirectUri = params.get("redirect_uri") ?? "";
  if (!isRegisteredRedirectUri(redirectUri, ctx.settings.tiktok.redirectUris)) {
    return {
      kind: "page",
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

function answerUnchecked(c: Context, checked: Exclude<Checked, { kind: "ok" }>): Response {
  if (checked.kind === "redirect") return c.redirect(checked.location, 302);
  return c.html(renderErrorPage("TikTok", 400, checked.error, checked.detail), 400);
}

/** `GET /v2/auth/authorize/` (TikTok Login Kit's consent page) and its form's submission. */
export function registerTikTokAuthorize(app: ServiceApp, ctx: SandboxContext): void {
  mountOperation(
    app,
    ctx.kit,
    {
      operation: "tiktok.oauth.authorize",
      platform: "tiktok",
      method: "get",
      path: AUTHORIZE_PATH,
      summary: "TikTok Login Kit consent page: choose a creator, allow or deny",
      errors: tiktokOAuthErrors,
    },
    (c) => {
      const checked = checkAuthorizeRequest(new URL(c.req.url).searchParams, ctx);
      if (checked.kind !== "ok") return answerUnchecked(c, checked);
      const accounts = Object.values(DEMO_TIKTOK.creators).map((creator) => ({
        id: creator.openId,
        label: `@${creator.username} (${creator.privacyLevelOptions.includes("PUBLIC_TO_EVERYONE") ? "public" : "private"} account)`,
      }));
      return c.html(
        renderConsentPage({
          platform: "TikTok",
          clientName: "Sandbox demo app",
          scopes: checked.scopes,
          action: APPROVE_PATH,
          params: checked.params,
          accounts,
        }),
      );
    },
  );
  mountOperation(
    app,
    ctx.kit,
    {
      operation: "tiktok.oauth.approve",
      platform: "tiktok",
      method: "post",
      path: APPROVE_PATH,
      summary: "The consent form's submission: redirects with `code`, `scopes` and `state`",
      errors: tiktokOAuthErrors,
    },
    async (c) => {
      const form = await readForm(c);
      const checked = checkAuthorizeRequest(form, ctx);
      if (checked.kind !== "ok") return answerUnchecked(c, checked);
      const state = form.get("state") ?? undefined;
      if (form.get("decision") !== "allow") {
        return c.redirect(
          redirectWith(checked.redirectUri, {
            error: "access_denied",
            error_description: "The user denied access.",
            state,
          }),
          302,
        );
      }
      const creator = Object.values(DEMO_TIKTOK.creators).find(
        (candidate) => candidate.openId === form.get("account"),
      );
      if (!creator)
        return c.html(renderErrorPage("TikTok", 400, "account", "Choose one of the listed creators."), 400);
      const challenge = form.get("code_challenge");
      const code = ctx.tiktok.grants.issueCode("", {
        clientId: DEMO_TIKTOK.clientKey,
        accountId: creator.openId,
        redirectUri: checked.redirectUri,
        scopes: checked.scopes,
        codeChallenge: challenge,
        codeChallengeMethod: challenge ? "S256" : null,
        offline: true,
        promptConsent: false,
      });
      return c.redirect(
        redirectWith(checked.redirectUri, { code, scopes: checked.scopes.join(","), state }),
        302,
      );
    },
  );
}

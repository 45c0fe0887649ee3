import type { ServiceApp } from "@app/core";
import type { Context } from "hono";
import type { SandboxContext } from "../context.ts";
import { DEMO_GOOGLE } from "../demo.ts";
import { readForm } from "../kit/bodies.ts";
import { renderConsentPage, renderErrorPage } from "../kit/consent-page.ts";
import { mountOperation } from "../kit/operations.ts";
import { isRegisteredRedirectUri, redirectWith } from "../kit/redirect-uris.ts";
import { googleOAuthErrors } from "./errors.ts";

const AUTHORIZE_PATH = "/o/oauth2/v2/auth";
const APPROVE_PATH = "/o/oauth2/v2/auth/approve";

type Checked =
  | { kind: "page"; status: 400 | 401; error: string; detail: string }
  | { kind: "redirect"; location: string }
  | { kind: "ok"; params: URLSearchParams; redirectUri: string; scopes: string[] };

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

function answerUnchecked(c: Context, checked: Exclude<Checked, { kind: "ok" }>): Response {
  if (checked.kind === "redirect") return c.redirect(checked.location, 302);
  return c.html(renderErrorPage("Google", checked.status, checked.error, checked.detail), checked.status);
}

/** `GET /o/oauth2/v2/auth` (the consent page) and `POST /o/oauth2/v2/auth/approve` (its form). */
export function registerGoogleAuthorize(app: ServiceApp, ctx: SandboxContext): void {
  mountOperation(
    app,
    ctx.kit,
    {
      operation: "google.oauth.authorize",
      platform: "google",
      method: "get",
      path: AUTHORIZE_PATH,
      summary: "Google's consent screen: choose an account, allow or deny",
      errors: googleOAuthErrors,
    },
    (c) => {
      const checked = checkAuthorizeRequest(new URL(c.req.url).searchParams, ctx);
      if (checked.kind !== "ok") return answerUnchecked(c, checked);
      const accounts = Object.values(DEMO_GOOGLE.accounts).map((account) => ({
        id: account.id,
        label: `${account.name} <${account.email}>${account.channel ? ` (YouTube: ${account.channel.title})` : " (no YouTube channel)"}`,
      }));
      return c.html(
        renderConsentPage({
          platform: "Google",
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
      operation: "google.oauth.approve",
      platform: "google",
      method: "post",
      path: APPROVE_PATH,
      summary: "The consent form's submission: redirects to the client with `code` and `state`",
      errors: googleOAuthErrors,
    },
    async (c) => {
      const form = await readForm(c);
      const checked = checkAuthorizeRequest(form, ctx);
      if (checked.kind !== "ok") return answerUnchecked(c, checked);
      const state = form.get("state") ?? undefined;
      if (form.get("decision") !== "allow") {
        return c.redirect(redirectWith(checked.redirectUri, { error: "access_denied", state }), 302);
      }
      const account = Object.values(DEMO_GOOGLE.accounts).find(
        (candidate) => candidate.id === form.get("account"),
      );
      if (!account) {
        return c.html(
          renderErrorPage("Google", 400, "invalid_request", "Choose one of the listed accounts."),
          400,
        );
      }
      const challenge = form.get("code_challenge");
      const code = ctx.google.grants.issueCode("4/0Asb", {
        clientId: DEMO_GOOGLE.clientId,
        accountId: account.id,
        redirectUri: checked.redirectUri,
        scopes: checked.scopes,
        codeChallenge: challenge,
        codeChallengeMethod: challenge ? (form.get("code_challenge_method") ?? "plain") : null,
        offline: form.get("access_type") === "offline",
        promptConsent: (form.get("prompt") ?? "").split(" ").includes("consent"),
      });
      return c.redirect(
        redirectWith(checked.redirectUri, { code, scope: checked.scopes.join(" "), state }),
        302,
      );
    },
  );
}

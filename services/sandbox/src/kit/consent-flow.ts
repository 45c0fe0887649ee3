import type { ServiceApp } from "@app/core";
import type { Context } from "hono";
import { readForm } from "./bodies.ts";
import { renderConsentPage, renderErrorPage } from "./consent-page.ts";
import type { ErrorRenderer } from "./failure.ts";
import { mountOperation, type OperationKit } from "./operations.ts";
import { redirectWith } from "./redirect-uris.ts";

/** What a platform's check of an authorize request (or of its form's echo) says. */
export type AuthorizeCheck =
  | { kind: "page"; status: 400 | 401; error: string; detail: string }
  | { kind: "redirect"; location: string }
  | { kind: "ok"; params: URLSearchParams; redirectUri: string; scopes: string[] };

/** One platform's consent flow: its checks, accounts, and what a grant redirects with. */
export type ConsentFlowSpec = {
  platform: "google" | "tiktok";
  /** As the pages show it: `Google`, `TikTok`. */
  platformName: string;
  authorizePath: string;
  approvePath: string;
  summaries: { page: string; approve: string };
  errors: ErrorRenderer;
  /** Checks the authorize request as the platform does (the form echoes it back). */
  check(params: URLSearchParams): AuthorizeCheck;
  /** The accounts a user may sign in as, for the page's picker. */
  accounts: { id: string; label: string }[];
  /** The error page for a form naming no listed account. */
  unknownAccount: { error: string; detail: string };
  /** The redirect's parameters when the user denies. */
  denied(state: string | undefined): Record<string, string | undefined>;
  /** Issues the code for the chosen account; the redirect's parameters. */
  grant(
    form: URLSearchParams,
    checked: Extract<AuthorizeCheck, { kind: "ok" }>,
    accountId: string,
  ): Record<string, string | undefined>;
};

/**
 * Mounts a platform's consent page (`GET authorizePath`: choose an account, allow or deny) and its
 * form's submission (`POST approvePath`: a redirect to the client with a code, or an error), both
 * checking the request as the platform does.
 */
export function mountConsentFlow(app: ServiceApp, kit: OperationKit, spec: ConsentFlowSpec): void {
  const answerUnchecked = (c: Context, checked: Exclude<AuthorizeCheck, { kind: "ok" }>) =>
    checked.kind === "redirect"
      ? c.redirect(checked.location, 302)
      : c.html(
          renderErrorPage(spec.platformName, checked.status, checked.error, checked.detail),
          checked.status,
        );
  mountOperation(
    app,
    kit,
    {
      operation: `${spec.platform}.oauth.authorize`,
      platform: spec.platform,
      method: "get",
      path: spec.authorizePath,
      summary: spec.summaries.page,
      errors: spec.errors,
    },
    (c) => {
      const checked = spec.check(new URL(c.req.url).searchParams);
      if (checked.kind !== "ok") return answerUnchecked(c, checked);
      return c.html(
        renderConsentPage({
          platform: spec.platformName,
          clientName: "Sandbox demo app",
          scopes: checked.scopes,
          action: spec.approvePath,
          params: checked.params,
          accounts: spec.accounts,
        }),
      );
    },
  );
  mountOperation(
    app,
    kit,
    {
      operation: `${spec.platform}.oauth.approve`,
      platform: spec.platform,
      method: "post",
      path: spec.approvePath,
      summary: spec.summaries.approve,
      errors: spec.errors,
    },
    async (c) => {
      const form = await readForm(c);
      const checked = spec.check(form);
      if (checked.kind !== "ok") return answerUnchecked(c, checked);
      const state = form.get("state") ?? undefined;
      if (form.get("decision") !== "allow") {
        return c.redirect(redirectWith(checked.redirectUri, spec.denied(state)), 302);
      }
      const account = spec.accounts.find((candidate) => candidate.id === form.get("account"));
      if (!account) {
        const { error, detail } = spec.unknownAccount;
        return c.html(renderErrorPage(spec.platformName, 400, error, detail), 400);
      }
      return c.redirect(
        redirectWith(checked.redirectUri, { ...spec.grant(form, checked, account.id), state }),
        302,
      );
    },
  );
}

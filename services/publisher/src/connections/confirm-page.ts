import type { PendingGrant } from "./connect-flows.ts";

/**
 * Headers of every page the connect flow shows: never framed (the confirm button must not be
 * clickjacked), no script, forms post only back here, nothing cached, and the callback's URL
 * (code and state in its query) not sent on as a referrer.
 */
export const PAGE_HEADERS = {
  "content-type": "text/html; charset=utf-8",
  "content-security-policy":
    "default-src 'none'; style-src 'unsafe-inline'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'",
  "x-frame-options": "DENY",
  "x-content-type-options": "nosniff",
  "cache-control": "no-store",
  "referrer-policy": "no-referrer",
} as const;

const PLATFORM_NAMES = { youtube: "YouTube", tiktok: "TikTok" } as const;

/** Text made safe inside HTML content and double-quoted attributes (names come from the platforms). */
export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (char) => `&#${char.charCodeAt(0)};`);
}

function page(title: string, body: string): string {
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width">
<title>${escapeHtml(title)}</title>
<style>body{font:16px/1.5 system-ui,sans-serif;max-width:32rem;margin:3rem auto;padding:0 1rem}
button{font:inherit;padding:.4rem 1rem;margin-right:.5rem}</style></head>
<body>${body}</body></html>`;
}

/** The question at the end of a consent: this platform account joins this publisher account? */
export function confirmPage(grant: PendingGrant, confirmPath: string): string {
  const platform = PLATFORM_NAMES[grant.platform];
  return page(
    `Connect ${platform}`,
    `<h1>Connect ${platform}?</h1>
<p>The ${platform} account <strong>${escapeHtml(grant.platformAccount.name)}</strong>
(${escapeHtml(grant.platformAccount.id)}) will publish for the publisher account
<strong>${escapeHtml(grant.publisherAccount.name)}</strong> (${escapeHtml(grant.publisherAccount.id)}).</p>
<p>Connect only if that publisher account is yours or you trust it: whoever holds its API keys can
then post as you. Someone else's connect link ends here too.</p>
<form method="post" action="${escapeHtml(confirmPath)}">
<input type="hidden" name="confirmation" value="${escapeHtml(grant.confirmation)}">
<button type="submit" name="decision" value="connect">Connect</button>
<button type="submit" name="decision" value="cancel">Cancel</button>
</form>`,
  );
}

/** The end of the flow, for the person at the browser. */
export function donePage(message: string): string {
  return page("Publisher", `<p>${escapeHtml(message)}</p>`);
}

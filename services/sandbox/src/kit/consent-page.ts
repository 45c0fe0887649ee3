/** Escapes text for HTML content and attribute values. */
export function escapeHtml(text: string): string {
  return text
    .replaceAll("&", "&amp;")
    .replaceAll("<", "&lt;")
    .replaceAll(">", "&gt;")
    .replaceAll('"', "&quot;")
    .replaceAll("'", "&#39;");
}

export type ConsentPage = {
  platform: string;
  clientName: string;
  scopes: string[];
  /** Where the form posts. */
  action: string;
  /** The authorize request's parameters, carried through the form (checked again on submit). */
  params: URLSearchParams;
  accounts: { id: string; label: string }[];
};

const STYLE =
  "body{font:16px system-ui,sans-serif;max-width:32rem;margin:3rem auto;padding:0 1rem}" +
  "fieldset{border:1px solid #ccc;border-radius:.5rem;margin:1rem 0}button{font-size:1rem;padding:.5rem 1rem;margin-right:.5rem}";

/** The sandbox's consent screen: pick an account, then allow or deny. */
export function renderConsentPage(page: ConsentPage): string {
  const hidden = [...page.params]
    .map(([name, value]) => `<input type="hidden" name="${escapeHtml(name)}" value="${escapeHtml(value)}">`)
    .join("\n");
  const accounts = page.accounts
    .map(
      (account, index) =>
        `<label><input type="radio" name="account" value="${escapeHtml(account.id)}"${index === 0 ? " checked" : ""}> ${escapeHtml(account.label)}</label><br>`,
    )
    .join("\n");
  const scopes = page.scopes.map((scope) => `<li><code>${escapeHtml(scope)}</code></li>`).join("");
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>${escapeHtml(page.platform)} sandbox: sign in</title><style>${STYLE}</style></head>
<body>
<h1>${escapeHtml(page.platform)} (sandbox)</h1>
<p><strong>${escapeHtml(page.clientName)}</strong> wants to:</p>
<ul>${scopes}</ul>
<form method="post" action="${escapeHtml(page.action)}">
${hidden}
<fieldset><legend>Continue as</legend>
${accounts}
</fieldset>
<button type="submit" name="decision" value="allow">Allow</button>
<button type="submit" name="decision" value="deny">Deny</button>
</form>
</body></html>
`;
}

/** A plain error page, for requests that cannot be sent back to the client (unknown client, bad redirect URI). */
export function renderErrorPage(platform: string, status: number, error: string, detail: string): string {
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>${escapeHtml(platform)} sandbox: error</title><style>${STYLE}</style></head>
<body><h1>Error ${status}: ${escapeHtml(error)}</h1><p>${escapeHtml(detail)}</p></body></html>
`;
}

/** What replaces a secret found in an upstream's answer. */
export const SCRUBBED = "[redacted]";

/** The forms a secret may take in an answer: as sent, percent-encoded, JSON-escaped. */
function secretForms(secret: string): string[] {
  const forms = new Set([secret, encodeURIComponent(secret), JSON.stringify(secret).slice(1, -1)]);
  return [...forms].filter((form) => form.length > 0);
}

/** The text with every occurrence of `secret` (in any of its forms) replaced by {@link SCRUBBED}. */
export function scrubSecret(text: string, secret: string | undefined): string {
  if (!secret) return text;
  let scrubbed = text;
  for (const form of secretForms(secret)) scrubbed = scrubbed.replaceAll(form, SCRUBBED);
  return scrubbed;
}

const isJson = (contentType: string | undefined) =>
  contentType !== undefined && /^application\/([\w.+-]*\+)?json\b/i.test(contentType.trim());

/**
 * An upstream body as the run's `output`: parsed JSON when the upstream said JSON and it parses,
 * the text otherwise, null when empty. An upstream that echoes the caller's key (an error message
 * quoting it, say) gets it scrubbed first: the key never comes back through the gateway.
 */
export function decodeOutput(body: Uint8Array, contentType: string | undefined, secret?: string): unknown {
  if (body.byteLength === 0) return null;
  const text = scrubSecret(new TextDecoder("utf-8").decode(body), secret);
  if (!isJson(contentType)) return text;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return text;
  }
}

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

const utf8 = new TextDecoder("utf-8");

/**
 * A run's `output` as JSON text that is known to parse: spliced as is into the answers (the
 * upstream's JSON is checked, not re-serialised). Anything that serialises it generically
 * (`JSON.stringify`) gets the parsed value through `toJSON`, so it is never spliced unchecked.
 */
export class OutputJson {
  constructor(readonly text: string) {}

  value(): unknown {
    return JSON.parse(this.text) as unknown;
  }

  toJSON(): unknown {
    return this.value();
  }
}

/**
 * An upstream body as the run's `output`, as JSON text: the upstream's own text when it said
 * JSON and the text parses (checked with `JSON.parse`, which is also the cheapest validator, then
 * dropped), the text as a JSON string otherwise, `null` when empty. The same value as
 * {@link decodeOutput}, written as the upstream wrote it (its spacing, key order and number
 * spelling kept). The caller's key is scrubbed first, in every form.
 */
export function outputJson(body: Uint8Array, contentType: string | undefined, secret?: string): OutputJson {
  if (body.byteLength === 0) return new OutputJson("null");
  const text = scrubSecret(utf8.decode(body), secret);
  if (isJson(contentType)) {
    try {
      JSON.parse(text);
      return new OutputJson(text);
    } catch {
      // Not JSON after all: the text, as a string.
    }
  }
  return new OutputJson(JSON.stringify(text));
}

/**
 * An upstream body as the run's `output`: parsed JSON when the upstream said JSON and it parses,
 * the text otherwise, null when empty. An upstream that echoes the caller's key (an error message
 * quoting it, say) gets it scrubbed first: the key never comes back through the gateway.
 */
export function decodeOutput(body: Uint8Array, contentType: string | undefined, secret?: string): unknown {
  if (body.byteLength === 0) return null;
  const text = scrubSecret(utf8.decode(body), secret);
  if (!isJson(contentType)) return text;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return text;
  }
}

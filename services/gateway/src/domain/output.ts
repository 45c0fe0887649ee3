/** What replaces a secret found in an upstream's answer. */
export const SCRUBBED = "[redacted]";

/** The forms a secret may take in a text, once decoded: as sent, and percent-encoded. */
function secretForms(secret: string): string[] {
  return [...new Set([secret, encodeURIComponent(secret)])];
}

/** The text with every occurrence of `secret` (as sent or percent-encoded) replaced by {@link SCRUBBED}. */
export function scrubSecret(text: string, secret: string | undefined): string {
  if (!secret) return text;
  let scrubbed = text;
  for (const form of secretForms(secret)) scrubbed = scrubbed.replaceAll(form, SCRUBBED);
  return scrubbed;
}

/** Whether the `"` at `index` of a JSON text is escaped (an odd run of backslashes before it). */
function isEscaped(json: string, index: number): boolean {
  let backslashes = 0;
  while (json.charCodeAt(index - 1 - backslashes) === 0x5c) backslashes += 1;
  return backslashes % 2 === 1;
}

/**
 * A JSON text (known to parse) with `secret` scrubbed from every string in it, object keys
 * included, by its value: each string is decoded before it is searched, so no spelling of the
 * secret hides it (`\/` for `/`, `\uXXXX` for any character), and a string holding it is written
 * again, scrubbed. Everything else (numbers, spacing, key order, the other strings' escapes) is
 * kept byte for byte. A flat scan of the text, never a recursion, so no nesting can overflow it.
 */
export function scrubJsonStrings(json: string, secret: string | undefined): string {
  if (!secret) return json;
  const forms = secretForms(secret);
  // Without a backslash every string is written as it reads: a plain search settles it.
  if (!json.includes("\\") && !forms.some((form) => json.includes(form))) return json;
  const pieces: string[] = [];
  let copied = 0;
  let open = json.indexOf('"');
  while (open !== -1) {
    let close = json.indexOf('"', open + 1);
    while (isEscaped(json, close)) close = json.indexOf('"', close + 1);
    const literal = json.slice(open, close + 1);
    const value = literal.includes("\\") ? (JSON.parse(literal) as string) : literal.slice(1, -1);
    if (forms.some((form) => value.includes(form))) {
      pieces.push(json.slice(copied, open), JSON.stringify(scrubSecret(value, secret)));
      copied = close + 1;
    }
    open = json.indexOf('"', close + 1);
  }
  if (copied === 0) return json;
  pieces.push(json.slice(copied));
  return pieces.join("");
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

const parses = (text: string) => {
  try {
    JSON.parse(text);
    return true;
  } catch {
    return false;
  }
};

/**
 * An upstream body as the run's `output`, as JSON text: the upstream's own text when it said
 * JSON and the text parses (checked with `JSON.parse`, which is also the cheapest validator, then
 * dropped), the text as a JSON string otherwise, `null` when empty. Written as the upstream wrote
 * it (its spacing, key order and number spelling kept). The caller's key is scrubbed from it:
 * from a JSON answer's strings by their values ({@link scrubJsonStrings}); from a text as it
 * stands, and by its strings' values too when it is JSON under another content type.
 */
export function outputJson(body: Uint8Array, contentType: string | undefined, secret?: string): OutputJson {
  if (body.byteLength === 0) return new OutputJson("null");
  const text = utf8.decode(body);
  const json = (isJson(contentType) || secret !== undefined) && parses(text);
  if (json && isJson(contentType)) return new OutputJson(scrubJsonStrings(text, secret));
  return new OutputJson(JSON.stringify(scrubSecret(json ? scrubJsonStrings(text, secret) : text, secret)));
}

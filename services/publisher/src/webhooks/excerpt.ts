/** The longest response excerpt kept for an attempt, in characters. */
export const MAX_EXCERPT_CHARS = 500;

const SECRET_PATTERN = /whsec_[A-Za-z0-9+/=]+/g;
const SECRET_PREFIX = "whsec_";
const REDACTED = "[redacted]";

/** The shortest start of a secret, cut by the end of the excerpt, that is taken out too. */
const MIN_CUT_SECRET_CHARS = 8;

/** Printable text, tabs and newlines: no other control character (C0, DEL) is kept. */
const isKept = (character: string) => {
  const code = character.codePointAt(0) ?? 0;
  return code === 9 || code === 10 || (code >= 32 && code !== 127);
};

const escapeRegExp = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");

/**
 * The forms a secret could be written back in: as given; and for a signing secret (`whsec_` +
 * base64), its key without the prefix (padded or not, and URL-encoded) and the key's bytes as
 * base64url and hex (matched in either case). Longest first, so that a form inside another (the
 * key inside the prefixed secret) never leaves part of the longer one.
 */
export function secretForms(secret: string): string[] {
  const forms = new Set([secret]);
  if (secret.startsWith(SECRET_PREFIX)) {
    const key = secret.slice(SECRET_PREFIX.length);
    const bytes = Buffer.from(key, "base64");
    forms.add(key);
    forms.add(key.replace(/=+$/, ""));
    forms.add(encodeURIComponent(key));
    if (bytes.length > 0) {
      forms.add(bytes.toString("base64url"));
      forms.add(bytes.toString("hex"));
    }
  }
  return [...forms].filter((form) => form.length > 0).sort((a, b) => b.length - a.length);
}

/** The text with every form of every secret taken out, and any secret's start cut at its end. */
function redact(text: string, secrets: readonly string[]): string {
  const forms = secrets.flatMap(secretForms);
  let redacted = text;
  if (forms.length > 0) {
    // Case-insensitive: hex comes in either case (a near-copy of a base64 key goes too, as it should).
    redacted = redacted.replace(new RegExp(forms.map(escapeRegExp).join("|"), "gi"), REDACTED);
  }
  redacted = redacted.replace(SECRET_PATTERN, REDACTED);
  // The sender keeps only the first bytes of an answer: a secret may be cut at its end.
  const lower = redacted.toLowerCase();
  let cut = 0;
  for (const form of forms) {
    const start = form.toLowerCase();
    for (let length = Math.min(start.length - 1, lower.length); length >= MIN_CUT_SECRET_CHARS; length -= 1) {
      if (lower.endsWith(start.slice(0, length))) {
        cut = Math.max(cut, length);
        break;
      }
    }
  }
  return cut > 0 ? redacted.slice(0, redacted.length - cut) + REDACTED : redacted;
}

/**
 * What is kept of a receiver's answer: its first bytes as text, control characters removed,
 * anything secret taken out (the attempt's own signatures, should the receiver echo them, and
 * the endpoint's signing secrets in any of their forms ({@link secretForms}), even cut short by
 * the end of the answer, and anything shaped like a signing secret), at most
 * {@link MAX_EXCERPT_CHARS} characters.
 */
export function responseExcerpt(body: Buffer, secrets: readonly string[]): string {
  const text = [...body.toString("utf8").toWellFormed()].filter(isKept).join("");
  return [...redact(text, secrets)].slice(0, MAX_EXCERPT_CHARS).join("");
}

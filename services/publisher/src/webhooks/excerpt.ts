/** The longest response excerpt kept for an attempt, in characters. */
export const MAX_EXCERPT_CHARS = 500;

const SECRET_PATTERN = /whsec_[A-Za-z0-9+/=]+/g;

/** Printable text, tabs and newlines: no other control character (C0, DEL) is kept. */
const isKept = (character: string) => {
  const code = character.codePointAt(0) ?? 0;
  return code === 9 || code === 10 || (code >= 32 && code !== 127);
};

/**
 * What is kept of a receiver's answer: its first bytes as text, control characters removed,
 * anything secret taken out (the attempt's own signatures, should the receiver echo them, and
 * anything shaped like a signing secret), at most {@link MAX_EXCERPT_CHARS} characters.
 */
export function responseExcerpt(body: Buffer, secrets: readonly string[]): string {
  let text = [...body.toString("utf8").toWellFormed()].filter(isKept).join("");
  for (const secret of secrets) {
    if (secret.length > 0) text = text.split(secret).join("[redacted]");
  }
  text = text.replace(SECRET_PATTERN, "[redacted]");
  return [...text].slice(0, MAX_EXCERPT_CHARS).join("");
}

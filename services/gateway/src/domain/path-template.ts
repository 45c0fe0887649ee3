/**
 * Path templates of registered tools (`/api/v1/posts/{id}`) and the substitution of their
 * parameters. A parameter becomes exactly one path segment: values that could leave it (a slash,
 * a backslash, a dot segment, `?`, `#`, control characters, or any of these percent-encoded, even
 * up to three times) are refused, as are values that are not well-formed UTF-16 (a lone
 * surrogate), and what is left is percent-encoded. Each `%XX` escape is decoded on its own, so a
 * stray `%` next to an escaped separator (`%2F%`) does not hide it.
 */

declare global {
  interface String {
    /** ES2024: whether the string holds no lone surrogate (the TS lib here is ES2023). */
    isWellFormed(): boolean;
  }
}

/** One refused parameter, in the shape of a validation issue. */
export type PathIssue = { path: string; message: string };

export type RenderedPath = { ok: true; path: string } | { ok: false; issues: PathIssue[] };

const PLACEHOLDER = /\{([A-Za-z][A-Za-z0-9_]*)\}/g;

/** The parameter names of a template, in order (`/a/{id}/b/{x}` → `["id", "x"]`). */
export function templateParameters(template: string): string[] {
  return [...template.matchAll(PLACEHOLDER)].map((match) => match[1] as string);
}

// biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what it looks for
const CONTROL = /[\u0000-\u001f\u007f-\u009f]/;
const SEPARATOR = /[/\\?#]/;
const MAX_DECODINGS = 3;

/** Characters that a byte of a `%XX` escape stands for when the run of escapes is not UTF-8. */
function byteCharacter(hex: string): string {
  const byte = Number.parseInt(hex, 16);
  return byte < 0x80 ? String.fromCharCode(byte) : "\ufffd";
}

/**
 * Decodes every `%XX` escape of `value` on its own run, leaving a stray `%` (`100%`, `%zz`) as it
 * is instead of giving up on the whole value: a run of escapes that is not UTF-8 is decoded byte
 * by byte (ASCII as itself, anything else as U+FFFD), so no escaped separator hides behind it.
 * Lenient decoders (Hono's among them) decode at least these ASCII characters.
 */
function decodeEscapes(value: string): string {
  return value.replace(ESCAPES, (run) => {
    try {
      return decodeURIComponent(run);
    } catch {
      return run.replace(ESCAPE, (_escape, hex: string) => byteCharacter(hex));
    }
  });
}

const ESCAPES = /(?:%[0-9A-Fa-f]{2})+/g;
const ESCAPE = /%([0-9A-Fa-f]{2})/g;

/** Every form the value takes when decoded up to three times (an upstream may decode again). */
function decodedForms(value: string): string[] {
  const forms = [value];
  let current = value;
  for (let round = 0; round < MAX_DECODINGS && current.includes("%"); round += 1) {
    const decoded = decodeEscapes(current);
    if (decoded === current) break;
    forms.push(decoded);
    current = decoded;
  }
  return forms;
}

/** Why a value cannot be a path segment, or undefined when it can. */
export function unsafeSegmentReason(value: string): string | undefined {
  if (value.length === 0) return "must not be empty";
  if (!value.isWellFormed()) return "must be well-formed text (no lone surrogates)";
  for (const form of decodedForms(value)) {
    if (form === "." || form === "..") return "must not be a dot segment";
    if (SEPARATOR.test(form)) return "must not contain /, \\, ? or #, plain or percent-encoded";
    if (CONTROL.test(form)) return "must not contain control characters";
  }
  return undefined;
}

/**
 * Substitutes `params` into `template`, each value checked by {@link unsafeSegmentReason} and
 * percent-encoded. `pathPrefix` names the issues' paths (`input.pathParams`).
 */
export function renderPath(
  template: string,
  params: Readonly<Record<string, string>>,
  pathPrefix = "pathParams",
): RenderedPath {
  const issues: PathIssue[] = [];
  const path = template.replace(PLACEHOLDER, (_placeholder, name: string) => {
    const value = params[name];
    if (value === undefined) {
      issues.push({ path: `${pathPrefix}.${name}`, message: "is required" });
      return "";
    }
    const reason = unsafeSegmentReason(value);
    if (reason) {
      issues.push({ path: `${pathPrefix}.${name}`, message: reason });
      return "";
    }
    return encodeURIComponent(value);
  });
  return issues.length > 0 ? { ok: false, issues } : { ok: true, path };
}

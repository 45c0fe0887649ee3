declare global {
  interface String {
    /** ES2024 (Node 20+): false when the string holds a lone surrogate. */
    isWellFormed(): boolean;
  }
}

/**
 * Whether text can be stored as PostgreSQL text and jsonb: no NUL (U+0000), which neither
 * accepts, and no lone surrogate, which is not Unicode and cannot be encoded as UTF-8.
 */
export function isStorableText(value: string): boolean {
  return !value.includes("\u0000") && value.isWellFormed();
}

/** The message of a refused text field. */
export const UNSTORABLE_TEXT = "must not contain NUL characters or unpaired surrogates";

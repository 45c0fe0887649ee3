/**
 * The first of `required` that a key does not hold, or undefined when it holds them all: a
 * refusal names the scope that is missing.
 */
export function missingScope(held: readonly string[], required: readonly string[]): string | undefined {
  return required.find((scope) => !held.includes(scope));
}

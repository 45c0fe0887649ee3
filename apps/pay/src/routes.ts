/**
 * What the CLI knows about the fortune routes: which take a JSON body (for the hint
 * after a 400) and which are MPP sessions rather than one-shot charges.
 *
 * @module
 */

/** How MPP pays a route: a one-shot charge, or a session in request mode or over SSE. */
export type MppMode = "charge" | "session" | "stream";

/** Example bodies of the routes that need one. */
const BODY_EXAMPLES: Record<string, string> = {
  "/api/fortune/premium": '{"category":"love"}',
  "/api/fortune/dynamic": '{"category":"wealth","depth":"detailed"}',
  "/api/fortune/llm": '{"prompt":"Will it rain?"}',
  "/api/fortune/stream": '{"prompt":"Tell me about tomorrow"}',
};

const MPP_MODES: Record<string, MppMode> = {
  "/api/fortune/llm": "session",
  "/api/fortune/stream": "stream",
};

const routeOf = (path: string): string => new URL(path, "http://route.invalid").pathname.replace(/\/+$/, "");

/** An example `--body` for a route that needs one, if the route is known to. */
export function bodyExample(path: string): string | undefined {
  return BODY_EXAMPLES[routeOf(path)];
}

/** How MPP pays this route: sessions for `/api/fortune/llm` and `/api/fortune/stream`, else a charge. */
export function mppModeOf(path: string): MppMode {
  return MPP_MODES[routeOf(path)] ?? "charge";
}

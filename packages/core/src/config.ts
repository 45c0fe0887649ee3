import { z } from "zod";

/** A configuration that cannot start the service: names each offending variable. */
export class ConfigError extends Error {
  constructor(readonly problems: string[]) {
    super(`Invalid configuration:\n${problems.map((p) => `  - ${p}`).join("\n")}`);
    this.name = "ConfigError";
  }
}

export type Env = Record<string, string | undefined>;

/**
 * Parses the environment once against a zod object whose keys are variable names.
 * Fails fast with a {@link ConfigError} naming every invalid variable, and every
 * variable that starts with one of `prefixes` but is not a known setting (a typo
 * such as `FORTUNE_PROT` is refused rather than silently ignored). Values are never
 * echoed: some of them are secrets.
 */
export function loadConfig<Shape extends z.ZodRawShape>(
  schema: z.ZodObject<Shape>,
  env: Env,
  options: { prefixes: string[] } = { prefixes: [] },
): z.infer<z.ZodObject<Shape>> {
  const known = new Set(Object.keys(schema.shape));
  const problems: string[] = [];
  for (const name of Object.keys(env).sort()) {
    if (options.prefixes.some((prefix) => name.startsWith(prefix)) && !known.has(name)) {
      problems.push(`${name}: unknown setting`);
    }
  }
  const present: Env = {};
  for (const name of known) {
    const value = env[name];
    if (value !== undefined && value !== "") present[name] = value;
  }
  const result = schema.safeParse(present);
  if (!result.success) {
    for (const issue of result.error.issues)
      problems.push(`${issue.path.join(".") || "(root)"}: ${issue.message}`);
  }
  if (problems.length > 0 || !result.success) throw new ConfigError(problems);
  return result.data;
}

function httpUrl() {
  return z.url({ protocol: /^https?$/, error: "must be an http:// or https:// URL" });
}

/** Settings shared by every variable schema. */
export const settings = {
  /** A TCP port, 0 meaning "any free port". */
  port: (fallback: number) => z.coerce.number().int().min(0).max(65535).default(fallback),
  host: () => z.string().min(1).default("127.0.0.1"),
  logLevel: () => z.enum(["fatal", "error", "warn", "info", "debug", "trace", "silent"]).default("info"),
  /** `postgres://…` selects PostgreSQL; unset selects embedded PGlite. */
  databaseUrl: () =>
    z
      .string()
      .regex(/^postgres(ql)?:\/\//, "must be a postgres:// URL")
      .optional(),
  dataDir: () => z.string().min(1).default(".data"),
  boolean: (fallback: boolean) =>
    z
      .enum(["true", "false", "1", "0"])
      .default(fallback ? "true" : "false")
      .transform((v) => v === "true" || v === "1"),
  /** A whole number from 1 to `max` (a count, a limit, a duration in the unit its name gives). */
  positiveInt: (fallback: number, max: number) => z.coerce.number().int().min(1).max(max).default(fallback),
  /** An absolute http:// or https:// URL, kept as written. */
  httpUrl,
  /**
   * An http(s) base URL that paths are resolved against: no credentials, query or fragment (a path
   * prefix is allowed), kept as written.
   */
  httpBaseUrl: () => httpUrl().refine(isBareBase, "must not carry credentials, a query or a fragment"),
};

/** Whether a URL carries nothing but scheme, host, port and path. */
function isBareBase(text: string): boolean {
  const url = new URL(text);
  return !url.username && !url.password && !url.search && !url.hash;
}

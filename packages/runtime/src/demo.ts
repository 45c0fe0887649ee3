import type { Env } from "@app/core";
import type { Database } from "@app/db";

/** What the launcher knows when it seeds the demos: the database, its env, where each service listens, and what they printed. */
export type DemoContext = {
  db: Database;
  env: Env;
  /** Each started service's base URL, by service name. */
  urls: Record<string, string>;
  /** The credentials the services have printed so far (the sandbox's PLC and second PDS, …). */
  credentials: Record<string, unknown>;
};

/**
 * A service's demo for `npm start` (its `./demo` export `seedDemo`): seeds what the demo needs,
 * again on every start, and returns what the banner prints; undefined when what it needs is not
 * running. Local use only: production code never imports a service's demo module.
 */
export type DemoSeeder = (context: DemoContext) => Promise<Record<string, unknown> | undefined>;

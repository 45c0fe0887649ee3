import type { Env, Logger, ServiceApp } from "@app/core";
import type { Database } from "@app/db";

/** Settings every service has, whatever else it configures. */
export type BaseServiceConfig = {
  host: string;
  port: number;
  logLevel: string;
  databaseUrl?: string;
  dataDir: string;
};

/** What a service needs to build its adapters and app. */
export type ServiceContext<Config extends BaseServiceConfig> = {
  config: Config;
  db: Database;
  logger: Logger;
};

/** A service once built: its app, the demo credentials it seeded, and how to stop its background work. */
export type BuiltService = {
  app: ServiceApp;
  /** Demo credentials for the local banner and `.data/local.json` (local use only). */
  credentials?: Record<string, unknown>;
  /** Told the service's URL once it listens (the port is known only then when it was 0). */
  onListening?: (url: string) => void;
  stop?: () => Promise<void>;
};

/**
 * Everything the runtime needs to start a service: its name (also its database
 * schema), config loader, migrations folder and builder. Each service exports one.
 */
export type ServiceDefinition<Config extends BaseServiceConfig = BaseServiceConfig> = {
  name: string;
  title: string;
  loadConfig(env: Env): Config;
  migrations: URL;
  /**
   * The other services this one calls, by the variable naming each one's URL (for example
   * `GATEWAY_SHOP_URL: "shop"`): a launcher that runs them together points these at where they
   * listen, unless the environment already sets them.
   */
  upstreams?: Record<string, string>;
  build(context: ServiceContext<Config>): Promise<BuiltService>;
};

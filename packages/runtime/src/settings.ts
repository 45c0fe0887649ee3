import { settings } from "@app/core";
import type { BaseServiceConfig } from "./definition.ts";

/**
 * The variables every service reads: `HOST`, `<PREFIX>_PORT`, `DATABASE_URL`,
 * `DATA_DIR`, `LOG_LEVEL`. Spread into a service's own variable schema.
 */
export function baseSettings<Prefix extends string>(prefix: Prefix, defaultPort: number) {
  return {
    HOST: settings.host(),
    DATABASE_URL: settings.databaseUrl(),
    DATA_DIR: settings.dataDir(),
    LOG_LEVEL: settings.logLevel(),
    [`${prefix}_PORT`]: settings.port(defaultPort),
  } as {
    HOST: ReturnType<typeof settings.host>;
    DATABASE_URL: ReturnType<typeof settings.databaseUrl>;
    DATA_DIR: ReturnType<typeof settings.dataDir>;
    LOG_LEVEL: ReturnType<typeof settings.logLevel>;
  } & Record<`${Prefix}_PORT`, ReturnType<typeof settings.port>>;
}

type BaseEnv = { HOST: string; DATABASE_URL?: string; DATA_DIR: string; LOG_LEVEL: string };

/** Maps the parsed base variables to {@link BaseServiceConfig}. */
export function toBaseConfig(env: BaseEnv, port: number): BaseServiceConfig {
  return {
    host: env.HOST,
    port,
    logLevel: env.LOG_LEVEL,
    databaseUrl: env.DATABASE_URL,
    dataDir: env.DATA_DIR,
  };
}

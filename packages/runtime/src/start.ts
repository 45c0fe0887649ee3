import {
  createLogger,
  type Env,
  type Logger,
  type RunningServer,
  routeConsoleTo,
  runMain,
  serveApp,
} from "@app/core";
import { type Database, loadMigrations, migrate, openDatabase } from "@app/db";
import { edgeMigrationSet } from "@app/edge";
import type { BaseServiceConfig, ServiceDefinition } from "./definition.ts";

/** A service listening on its port. */
export type StartedService = {
  name: string;
  title: string;
  url: string;
  credentials: Record<string, unknown>;
  stop(): Promise<void>;
};

/**
 * Applies the shared mechanisms' migrations (the `edge` schema), then the service's own to its
 * schema. Returns the ids the service's own set applied.
 */
export async function migrateService(
  definition: Pick<ServiceDefinition, "name" | "migrations">,
  db: Database,
): Promise<string[]> {
  await migrate(db, await edgeMigrationSet());
  return migrate(db, { schema: definition.name, migrations: await loadMigrations(definition.migrations) });
}

/**
 * Starts one service on an open database: migrations, adapters, app, HTTP server.
 * The config must already be loaded (config errors surface before anything starts).
 */
export async function startService<Config extends BaseServiceConfig>(
  definition: ServiceDefinition<Config>,
  config: Config,
  db: Database,
  logger: Logger = createLogger({ name: definition.name, level: config.logLevel }),
): Promise<StartedService> {
  await migrateService(definition, db);
  const built = await definition.build({ config, db, logger });
  let server: RunningServer;
  try {
    server = await serveApp(built.app as never, { host: config.host, port: config.port });
  } catch (error) {
    await built.stop?.();
    throw error;
  }
  built.onListening?.(server.url);
  logger.info({ url: server.url }, `${definition.name} listening`);
  return {
    name: definition.name,
    title: definition.title,
    url: server.url,
    credentials: built.credentials ?? {},
    async stop() {
      await server.close();
      await built.stop?.();
    },
  };
}

/** `npm start -w services/<name>`: one service with its own database handle. */
export function runStandalone<Config extends BaseServiceConfig>(
  definition: ServiceDefinition<Config>,
  env: Env = process.env,
): Promise<void> {
  return runMain(async () => {
    const config = definition.loadConfig(env);
    routeConsoleTo(createLogger({ name: "console", level: config.logLevel }));
    const db = await openDatabase(
      { url: config.databaseUrl, dataDir: config.dataDir },
      { role: "owner", holder: `npm start -w services/${definition.name}` },
    );
    let service: StartedService;
    try {
      service = await startService(definition, config, db);
    } catch (error) {
      await db.close();
      throw error;
    }
    process.stdout.write(`${definition.title} listening on ${service.url} (docs: ${service.url}/docs)\n`);
    if (db.endpoint) process.stdout.write(`Its embedded database, for psql and the CLIs: ${db.endpoint}\n`);
    return {
      async stop() {
        await service.stop();
        await db.close();
      },
    };
  });
}

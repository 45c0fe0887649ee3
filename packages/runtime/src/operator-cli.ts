import { ConfigError } from "@app/core";
import { openDatabase } from "@app/db";
import type { CommandLineTool } from "./cli.ts";
import type { BaseServiceConfig, ServiceDefinition } from "./definition.ts";
import { migrateService } from "./start.ts";

/**
 * The body of a service's `src/cli.ts` (`npm run shop -- <command>`): runs one command of `tool`
 * from the process's arguments against the database the service uses (`DATABASE_URL`, or PGlite
 * under `DATA_DIR`), migrated first, and sets the exit code. Results go to stdout, problems to stderr;
 * a bad setting is the same readable list the service prints, with exit code 1, not a stack.
 */
export async function runOperatorCli(
  definition: Pick<ServiceDefinition, "name" | "migrations">,
  loadConfig: () => Pick<BaseServiceConfig, "databaseUrl" | "dataDir">,
  tool: Pick<CommandLineTool, "run">,
): Promise<void> {
  let config: Pick<BaseServiceConfig, "databaseUrl" | "dataDir">;
  try {
    config = loadConfig();
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    process.stderr.write(`${error.message}\n`);
    process.exitCode = 1;
    return;
  }
  process.exitCode = await tool.run(process.argv.slice(2), {
    io: {
      out: (text) => process.stdout.write(`${text}\n`),
      err: (text) => process.stderr.write(`${text}\n`),
    },
    async openDatabase() {
      const db = await openDatabase(
        { url: config.databaseUrl, dataDir: config.dataDir },
        { holder: `npm run ${definition.name}` },
      );
      await migrateService(definition, db);
      return db;
    },
  });
}

import { openDatabase } from "@app/db";
import { migrateService } from "@app/runtime";
import { runCli } from "./cli/run.ts";
import { loadPublisherConfig } from "./config.ts";
import { apiVariables, publisherService } from "./service.ts";

/**
 * `npm run publisher -- <command>`: accounts, their smart schedule, and API keys. It reaches the
 * database the service uses (`DATABASE_URL`, or PGlite under `DATA_DIR`).
 */
const config = loadPublisherConfig(apiVariables(process.env));
process.exitCode = await runCli(process.argv.slice(2), {
  io: { out: (text) => process.stdout.write(`${text}\n`), err: (text) => process.stderr.write(`${text}\n`) },
  async openDatabase() {
    const db = await openDatabase(
      { url: config.databaseUrl, dataDir: config.dataDir },
      { holder: "npm run publisher" },
    );
    await migrateService(publisherService, db);
    return db;
  },
});

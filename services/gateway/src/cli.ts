import { openDatabase } from "@app/db";
import { migrateService } from "@app/runtime";
import { runCli } from "./cli/run.ts";
import { loadGatewayConfig } from "./config.ts";
import { gatewayService } from "./service.ts";

/**
 * `npm run gateway -- <command>`: the operator's tool (accounts, keys, credit, usage). It reaches
 * the database the service uses (`DATABASE_URL`, or PGlite under `DATA_DIR`).
 */
const config = loadGatewayConfig(process.env);
process.exitCode = await runCli(process.argv.slice(2), {
  io: { out: (text) => process.stdout.write(`${text}\n`), err: (text) => process.stderr.write(`${text}\n`) },
  async openDatabase() {
    const db = await openDatabase(
      { url: config.databaseUrl, dataDir: config.dataDir },
      { holder: "npm run gateway" },
    );
    await migrateService(gatewayService, db);
    return db;
  },
});

import { openDatabase } from "@app/db";
import { migrateService } from "@app/runtime";
import { runCli } from "./cli/run.ts";
import { loadShopConfig } from "./config.ts";
import { shopService } from "./service.ts";

/**
 * `npm run shop -- <command>`: the shop owner's tool (shops, hours, closures, services, keys).
 * It reaches the database the service uses (`DATABASE_URL`, or PGlite under `DATA_DIR`).
 */
const config = loadShopConfig(process.env);
process.exitCode = await runCli(process.argv.slice(2), {
  io: { out: (text) => process.stdout.write(`${text}\n`), err: (text) => process.stderr.write(`${text}\n`) },
  async openDatabase() {
    const db = await openDatabase(
      { url: config.databaseUrl, dataDir: config.dataDir },
      { holder: "npm run shop" },
    );
    await migrateService(shopService, db);
    return db;
  },
});

/**
 * The worker process (`npm run worker -w services/publisher`): publishing workers only, on the
 * configured database. Run as many as needed against one PostgreSQL; each claims due targets
 * with its own id. On embedded PGlite it connects through the process that owns the data folder
 * (or holds the folder itself while none runs). Beside `npm start`, `npm run worker` at the root
 * starts one with the platform's settings.
 */
import { runMain } from "@app/core";
import { startWorkerProcess } from "./publishing/worker-process.ts";

await runMain(() => startWorkerProcess(process.env, "npm run worker -w services/publisher"));

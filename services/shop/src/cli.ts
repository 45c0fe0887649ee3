import { runOperatorCli } from "@app/runtime";
import { runCli } from "./cli/run.ts";
import { loadShopConfig } from "./config.ts";
import { shopService } from "./service.ts";

/** `npm run shop -- <command>`: the shop owner's tool (shops, hours, closures, services, keys). */
await runOperatorCli(shopService, () => loadShopConfig(process.env), { run: runCli });

import { runOperatorCli } from "@app/runtime";
import { runCli } from "./cli/run.ts";
import { loadGatewayConfig } from "./config.ts";
import { gatewayService } from "./service.ts";

/** `npm run gateway -- <command>`: the operator's tool (accounts, keys, credit, usage). */
await runOperatorCli(gatewayService, () => loadGatewayConfig(process.env), { run: runCli });

import { runOperatorCli } from "@app/runtime";
import { runCli } from "./cli/run.ts";
import { loadPublisherCliConfig } from "./config.ts";
import { publisherService } from "./service.ts";

/** `npm run publisher -- <command>`: accounts, their smart schedule, and API keys. */
await runOperatorCli(publisherService, () => loadPublisherCliConfig(process.env), { run: runCli });

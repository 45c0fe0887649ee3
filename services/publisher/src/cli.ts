import { runOperatorCli } from "@app/runtime";
import { runCli } from "./cli/run.ts";
import { loadPublisherConfig } from "./config.ts";
import { apiVariables, publisherService } from "./service.ts";

/** `npm run publisher -- <command>`: accounts, their smart schedule, and API keys. */
await runOperatorCli(publisherService, loadPublisherConfig(apiVariables(process.env)), { run: runCli });

import { runStandalone } from "@app/runtime";
import { marketsService } from "./service.ts";

await runStandalone(marketsService);

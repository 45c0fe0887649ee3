import { runStandalone } from "@app/runtime";
import { fortuneService } from "./service.ts";

await runStandalone(fortuneService);

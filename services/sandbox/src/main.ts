import { runStandalone } from "@app/runtime";
import { sandboxService } from "./service.ts";

await runStandalone(sandboxService);

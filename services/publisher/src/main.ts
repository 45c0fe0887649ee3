import { runStandalone } from "@app/runtime";
import { publisherService } from "./service.ts";

await runStandalone(publisherService);

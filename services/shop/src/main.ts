import { runStandalone } from "@app/runtime";
import { shopService } from "./service.ts";

await runStandalone(shopService);

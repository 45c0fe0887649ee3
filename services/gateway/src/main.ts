import { runStandalone } from "@app/runtime";
import { gatewayService } from "./service.ts";

await runStandalone(gatewayService);

/**
 * The launcher (`startPlatform`, as `npm start` runs it) with the sandbox, the publisher and the
 * gateway only: no local chain to wait for, so a test can start and kill it many times.
 */
import { runMain } from "@app/core";
import { gatewayService } from "@app/gateway";
import { publisherService } from "@app/publisher";
import type { ServiceDefinition } from "@app/runtime";
import { sandboxService } from "@app/sandbox";
import { startPlatform } from "../../src/platform.ts";

await runMain(async () => {
  const services = [sandboxService, publisherService, gatewayService] as ServiceDefinition<never>[];
  const platform = await startPlatform(services, process.env);
  process.stdout.write("slim platform up\n");
  return platform;
});

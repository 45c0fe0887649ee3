/**
 * The slim platform (sandbox, publisher, gateway) with a probe in the publisher's build, where its
 * workers start: it prints the URL prefixes the sandbox's TikTok twin verifies at that moment,
 * which is what a TikTok post already due when the workers start is checked against.
 */
import type { Env } from "@app/core";
import { runMain } from "@app/core";
import { gatewayService } from "@app/gateway";
import { publisherService } from "@app/publisher";
import type { ServiceDefinition } from "@app/runtime";
import { sandboxService } from "@app/sandbox";
import { startPlatform } from "../../src/platform.ts";

const PROBE_LINE = "verified when the publisher's workers start: ";

let platformUrl: string | undefined;
const probedPublisher: typeof publisherService = {
  ...publisherService,
  loadConfig(env: Env) {
    platformUrl = env.PUBLISHER_PLATFORM_URL;
    return publisherService.loadConfig(env);
  },
  async build(context) {
    const res = await fetch(`${platformUrl}/_sandbox/settings`);
    const { tiktokVerifiedUrlPrefixes } = (await res.json()) as { tiktokVerifiedUrlPrefixes: string[] };
    process.stdout.write(`${PROBE_LINE}${JSON.stringify(tiktokVerifiedUrlPrefixes)}\n`);
    return publisherService.build(context);
  },
};

await runMain(async () => {
  const services = [sandboxService, probedPublisher, gatewayService] as ServiceDefinition<never>[];
  const platform = await startPlatform(services, process.env);
  process.stdout.write("slim platform up\n");
  return platform;
});

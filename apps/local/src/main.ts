import { runMain } from "@app/core";
import { banner, startPlatform } from "./platform.ts";
import { platformServices } from "./services.ts";

await runMain(async () => {
  const platform = await startPlatform(platformServices, process.env);
  const titles = new Map(platformServices.map((service) => [service.name, service.title]));
  process.stdout.write(`${banner(platform, titles)}\n`);
  return platform;
});

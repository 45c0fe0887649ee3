import { type Env, loadConfig, z } from "@app/core";
import { type BaseServiceConfig, baseSettings, toBaseConfig } from "@app/runtime";

const variables = z.object({ ...baseSettings("PUBLISHER", 3002) });

export type PublisherConfig = BaseServiceConfig;

/** Reads the publisher service's settings from the environment, once, failing fast on bad values. */
export function loadPublisherConfig(env: Env): PublisherConfig {
  const parsed = loadConfig(variables, env, { prefixes: ["PUBLISHER_"] });
  return toBaseConfig(parsed, parsed.PUBLISHER_PORT);
}

import { type Env, loadConfig, z } from "@app/core";
import { type BaseServiceConfig, baseSettings, toBaseConfig } from "@app/runtime";

const variables = z.object({ ...baseSettings("GATEWAY", 3003) });

export type GatewayConfig = BaseServiceConfig;

/** Reads the gateway service's settings from the environment, once, failing fast on bad values. */
export function loadGatewayConfig(env: Env): GatewayConfig {
  const parsed = loadConfig(variables, env, { prefixes: ["GATEWAY_"] });
  return toBaseConfig(parsed, parsed.GATEWAY_PORT);
}

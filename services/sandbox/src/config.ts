import { type Env, loadConfig, z } from "@app/core";
import { type BaseServiceConfig, baseSettings, toBaseConfig } from "@app/runtime";

const variables = z.object({ ...baseSettings("SANDBOX", 3006) });

export type SandboxConfig = BaseServiceConfig;

/** Reads the sandbox service's settings from the environment, once, failing fast on bad values. */
export function loadSandboxConfig(env: Env): SandboxConfig {
  const parsed = loadConfig(variables, env, { prefixes: ["SANDBOX_"] });
  return toBaseConfig(parsed, parsed.SANDBOX_PORT);
}

import type { ServiceApp } from "@app/core";
import { createApp, type SelfServeDeps } from "../../src/app.ts";
import type { GatewayDeps } from "../../src/runner/deps.ts";

/**
 * The gateway app as it is on payment rails, for what its routes declare (`/openapi.json`,
 * `/llms.txt`, `/.well-known/x402`) without a chain: registering the self-serve routes reads only
 * how MPP is paid and the origin, so nothing else is given, and none may be called.
 */
export function appWithStubRails(deps: GatewayDeps): ServiceApp {
  const selfServe = {
    mpp: { method: "tempo", currency: "0x20c0000000000000000000000000000000000000" },
    origin: () => new URL("http://127.0.0.1"),
  } as unknown as SelfServeDeps;
  return createApp(deps, selfServe);
}

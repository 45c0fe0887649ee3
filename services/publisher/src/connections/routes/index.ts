import { type ServiceApp, systemClock } from "@app/core";
import type { ConnectFlowDeps, OAuthPlatform } from "../connect-flows.ts";
import { registerConnectionsAuthorize } from "./connections_authorize.ts";
import { registerConnectionsBluesky } from "./connections_bluesky.ts";
import { registerOAuthCallback } from "./oauth_callback.ts";
import { registerOAuthConfirm } from "./oauth_confirm.ts";
import type { ConnectionRouteDeps } from "./shared.ts";

export type { ConnectionRouteDeps } from "./shared.ts";

/**
 * The connect flows: `POST /api/v1/connections/{youtube|tiktok}/authorize` returns the platform's
 * authorize URL (state bound to the caller's account); the platform sends the user back to
 * `/oauth/{platform}/callback`, which asks the user to confirm the publisher account the platform
 * account joins (`/oauth/{platform}/confirm`); `POST /api/v1/connections/bluesky` connects with
 * an app password.
 */
export function registerConnectionRoutes(app: ServiceApp, routeDeps: ConnectionRouteDeps): void {
  const deps: ConnectFlowDeps = { ...routeDeps, clock: routeDeps.clock ?? systemClock };
  registerConnectionsAuthorize(app, routeDeps, deps);
  for (const platform of ["youtube", "tiktok"] as const satisfies OAuthPlatform[]) {
    registerOAuthCallback(app, deps, platform);
    registerOAuthConfirm(app, deps, platform);
  }
  registerConnectionsBluesky(app, routeDeps, deps);
}

import { z } from "@app/core";
import type { ApiKeyMiddleware } from "@app/edge";
import type { Context } from "hono";
import type { KeyHolder } from "../../store/accounts.ts";
import type { ConnectFlowDeps } from "../connect-flows.ts";

export type ConnectionRouteDeps = Omit<ConnectFlowDeps, "clock"> & {
  clock?: ConnectFlowDeps["clock"];
  /**
   * The API half's key check for a route needing `scope`, as route middleware: the caller's
   * account is then `c.var.caller` (it answers 401 / 429 / 403 itself).
   */
  keyGuard(scope: "posts:write"): ApiKeyMiddleware<KeyHolder>;
};

export const Connection = z
  .object({ id: z.string(), platform: z.string(), account_name: z.string(), account_id: z.string() })
  .openapi("Connection");

export const SECURITY = [{ apiKey: [] }];

/** The cookie that ties the confirm step to the browser that came back from the platform. */
export const CONFIRM_COOKIE = "publisher_connect";

/** Whether the caller is a browser (an HTML page) rather than a program (JSON). */
export const wantsHtml = (c: Context) => (c.req.header("accept") ?? "").includes("text/html");

/**
 * Where a browser reaches one of this service's paths: under the public URL's own path when the
 * service sits behind a prefix (`https://host/publisher` → `/publisher/oauth/…`).
 */
export function publicPath(publicUrl: string, path: string): string {
  return `${new URL(publicUrl).pathname.replace(/\/$/, "")}${path}`;
}

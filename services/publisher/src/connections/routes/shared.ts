import { z } from "@app/core";
import type { Context } from "hono";
import type { ConnectFlowDeps } from "../connect-flows.ts";

export type ConnectionRouteDeps = Omit<ConnectFlowDeps, "clock"> & {
  clock?: ConnectFlowDeps["clock"];
  /** The caller's account from its API key (the API half's check; throws 401/403 itself). */
  authenticate(c: Context, scope: "posts:write"): Promise<{ accountId: string }>;
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

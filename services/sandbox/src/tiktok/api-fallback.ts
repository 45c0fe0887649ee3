import type { ServiceApp } from "@app/core";
import type { SandboxContext } from "../context.ts";
import { mountedOperations } from "../kit/operations.ts";
import { tiktokErrors } from "./errors.ts";

/** Where TikTok's API lives on the sandbox (`open.tiktokapis.com/v2/...`). */
export const TIKTOK_API_PREFIX = "/v2/";

/**
 * Every `/v2/...` request no TikTok operation answers gets TikTok's envelope, never the sandbox's
 * own body: 405 for a known path asked with another method, 404 for an unknown path, both
 * `invalid_params` (TikTok does not document its answer to an unknown path; the twin keeps to the
 * codes its error-handling page lists). Mounted after the TikTok operations, so it only sees what
 * they leave; it reads no body.
 */
export function registerTikTokApiFallback(app: ServiceApp, _ctx: SandboxContext): void {
  app.all(`${TIKTOK_API_PREFIX}*`, (c) => {
    const path = new URL(c.req.url).pathname;
    const known = [...(mountedOperations.get(app)?.values() ?? [])].some(
      (spec) => spec.platform === "tiktok" && spec.path === path,
    );
    const rendered = tiktokErrors(
      known
        ? { status: 405, message: `${c.req.method} is not allowed on ${path.slice(0, 100)}.` }
        : { status: 404, message: `No API at ${path.slice(0, 100)}.` },
    );
    return c.json(rendered.body as object, rendered.status as 404 | 405);
  });
}

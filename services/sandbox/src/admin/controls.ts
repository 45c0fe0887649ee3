import { createRoute, jsonResponse, type ServiceApp, z } from "@app/core";
import { resetSandboxContext, type SandboxContext } from "../context.ts";
import { DEMO_BLUESKY } from "../demo.ts";

const TAGS = ["Sandbox controls"];
const TokenTarget = z.object({
  platform: z.enum(["google", "tiktok", "bluesky"]),
  account: z
    .string()
    .min(1)
    .max(200)
    .optional()
    .openapi({ description: "Google account id, TikTok open_id or Bluesky DID" }),
});

const SettingsPatch = z
  .object({
    googleRotateRefreshTokens: z.boolean().optional(),
    tiktokProcessingPolls: z.number().int().min(0).max(1000).optional(),
    tiktokOutcome: z.enum(["complete", "fail", "stuck"]).optional(),
    tiktokFailReason: z.string().min(1).max(100).optional(),
    tiktokVerifiedUrlPrefixes: z
      .array(z.url({ protocol: /^https?$/ }))
      .max(50)
      .optional(),
  })
  .openapi("SandboxSettingsPatch");

function currentSettings(ctx: SandboxContext) {
  return {
    googleRotateRefreshTokens: ctx.google.rotateRefreshTokens,
    tiktokProcessingPolls: ctx.tiktok.processingPolls,
    tiktokOutcome: ctx.tiktok.outcome.kind,
    tiktokFailReason: ctx.tiktok.outcome.kind === "fail" ? ctx.tiktok.outcome.reason : null,
    tiktokVerifiedUrlPrefixes: ctx.tiktok.verifiedUrlPrefixes,
  };
}

/** Token expiry and revocation, run-time settings and reset. */
export function registerSandboxControls(app: ServiceApp, ctx: SandboxContext): void {
  const tokenRoute = (action: "expire" | "revoke", summary: string) =>
    createRoute({
      method: "post",
      path: `/_sandbox/tokens/${action}`,
      operationId: `sandbox_tokens_${action}`,
      tags: TAGS,
      summary,
      request: { body: { required: true, content: { "application/json": { schema: TokenTarget } } } },
      responses: { 200: jsonResponse(z.object({ affected: z.number().int() }), "Done") },
    });
  app.openapi(tokenRoute("expire", "Expire access tokens now (refresh tokens keep working)"), (c) => {
    const { platform, account } = c.req.valid("json");
    if (platform === "bluesky") {
      ctx.bluesky.accessNotBefore.set(account ?? DEMO_BLUESKY.did, ctx.kit.clock.now().getTime() + 1000);
      return c.json({ affected: 1 }, 200);
    }
    return c.json({ affected: ctx[platform].grants.expireAccessTokens(account) }, 200);
  });
  app.openapi(
    tokenRoute("revoke", "Revoke grants: access and refresh tokens stop working (invalid_grant)"),
    (c) => {
      const { platform, account } = c.req.valid("json");
      if (platform === "bluesky") {
        let affected = 0;
        for (const [jti, session] of ctx.bluesky.refreshTokens) {
          if (account !== undefined && session.did !== account) continue;
          ctx.bluesky.refreshTokens.delete(jti);
          affected += 1;
        }
        ctx.bluesky.accessNotBefore.set(account ?? DEMO_BLUESKY.did, ctx.kit.clock.now().getTime() + 1000);
        return c.json({ affected }, 200);
      }
      return c.json({ affected: ctx[platform].grants.revokeGrants(account) }, 200);
    },
  );
  app.openapi(
    createRoute({
      method: "get",
      path: "/_sandbox/settings",
      operationId: "sandbox_settings",
      tags: TAGS,
      summary: "The settings that change at run time",
      responses: { 200: jsonResponse(z.record(z.string(), z.unknown()), "Settings") },
    }),
    (c) => c.json(currentSettings(ctx), 200),
  );
  app.openapi(
    createRoute({
      method: "patch",
      path: "/_sandbox/settings",
      operationId: "sandbox_settings_update",
      tags: TAGS,
      summary: "Change refresh-token rotation, TikTok processing and outcome, verified URL prefixes",
      request: { body: { required: true, content: { "application/json": { schema: SettingsPatch } } } },
      responses: { 200: jsonResponse(z.record(z.string(), z.unknown()), "Settings now") },
    }),
    (c) => {
      const patch = c.req.valid("json");
      if (patch.googleRotateRefreshTokens !== undefined)
        ctx.google.rotateRefreshTokens = patch.googleRotateRefreshTokens;
      if (patch.tiktokProcessingPolls !== undefined) ctx.tiktok.processingPolls = patch.tiktokProcessingPolls;
      if (patch.tiktokVerifiedUrlPrefixes !== undefined)
        ctx.tiktok.verifiedUrlPrefixes = patch.tiktokVerifiedUrlPrefixes;
      if (patch.tiktokOutcome === "fail")
        ctx.tiktok.outcome = { kind: "fail", reason: patch.tiktokFailReason ?? "internal" };
      else if (patch.tiktokOutcome !== undefined) ctx.tiktok.outcome = { kind: patch.tiktokOutcome };
      return c.json(currentSettings(ctx), 200);
    },
  );
  app.openapi(
    createRoute({
      method: "post",
      path: "/_sandbox/reset",
      operationId: "sandbox_reset",
      tags: TAGS,
      summary: "Forget every token, session, post, fault and logged request",
      responses: { 200: jsonResponse(z.object({ reset: z.boolean() }), "Reset") },
    }),
    (c) => {
      resetSandboxContext(ctx);
      return c.json({ reset: true }, 200);
    },
  );
}

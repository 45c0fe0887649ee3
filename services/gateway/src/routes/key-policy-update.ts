import { ApiError, createRoute, errorResponseSpec, jsonResponse, requestHeader, z } from "@app/core";
import type { MiddlewareHandler } from "hono";
import {
  isLimited,
  MAX_POLICY_ENTRIES,
  type PolicyChange,
  policyChangeIssues,
  policyView,
  RATE_PER_MINUTE,
} from "../domain/key-policy.ts";
import { parseUsd } from "../domain/money.ts";
import { GatewayError } from "../errors.ts";
import type { GatewayDeps } from "../runner/deps.ts";
import type { SelfServeDeps } from "../self-serve/deps.ts";
import type { Caller } from "../store/accounts.ts";
import { KeyPolicyStore } from "../store/key-policies.ts";
import { KeyPathSchema, SIGN_IN_RESPONSES } from "./self-serve-shared.ts";
import { COMMON_RESPONSES, GATEWAY_KEY_SECURITY, type GatewayApp, gatewayKeyGuard } from "./shared.ts";
import { signedInAccountOf } from "./wallet-sign-in.ts";

const DECIMAL_USD_MESSAGE = 'must be a decimal USD amount with at most 6 decimals, like "0.10"';

const DecimalUsd = z
  .string()
  .regex(/^\d{1,10}(\.\d{1,6})?$/, DECIMAL_USD_MESSAGE)
  .openapi({ example: "0.10" });

/** A tool as policies name it: `"provider endpoint METHOD"`. */
const TOOL_NAME = /^[a-z0-9][a-z0-9_-]{0,63} \/\S{0,255} [A-Z]{1,16}$/;

/**
 * `toolCaps`: an object of tool names and amounts, each own key checked. Not a `z.record`, which
 * copies the object and skips an own `__proto__` key (`JSON.parse` makes one) without a word: the
 * change would then clear the caps instead of refusing a name that is no tool.
 */
const ToolCapsSchema = z
  .unknown()
  .superRefine((value, context) => {
    if (value === null || typeof value !== "object" || Array.isArray(value)) {
      context.addIssue({
        code: "custom",
        message: "must be an object of tool names and USD amounts, or null",
      });
      return;
    }
    const entries = Object.entries(value);
    if (entries.length > MAX_POLICY_ENTRIES) {
      context.addIssue({ code: "custom", message: `caps at most ${MAX_POLICY_ENTRIES} tools` });
    }
    for (const [name, cap] of entries) {
      if (!TOOL_NAME.test(name)) {
        context.addIssue({
          code: "custom",
          path: [name],
          message: 'must name a tool as "provider endpoint METHOD"',
        });
      } else if (!DecimalUsd.safeParse(cap).success) {
        context.addIssue({ code: "custom", path: [name], message: DECIMAL_USD_MESSAGE });
      }
    }
  })
  .transform((value) => value as Record<string, string>)
  .meta({
    type: "object",
    propertyNames: { type: "string" },
    additionalProperties: { type: "string" },
  });

const KeyPolicyBody = z
  .object({
    allow: z
      .array(z.string().min(1).max(300))
      .min(1)
      .max(MAX_POLICY_ENTRIES)
      .nullable()
      .optional()
      .openapi({
        description:
          'Provider ids (`"markets"`) and tools (`"publisher /api/v1/posts GET"`) the key may see and run; null: every tool',
        example: ["markets"],
      }),
    dailyCap: DecimalUsd.nullable()
      .optional()
      .openapi({ description: "The most the key may spend per UTC day, every tool together; null: no cap" }),
    toolCaps: ToolCapsSchema.nullable()
      .optional()
      .openapi({
        description:
          "The most the key may spend per UTC day on each tool named (all replaced); null or {}: none",
        example: { "markets /pm/event GET": "0.05" },
      }),
    ratePerMinute: z
      .int()
      .min(RATE_PER_MINUTE.min)
      .max(RATE_PER_MINUTE.max)
      .nullable()
      .optional()
      .openapi({ description: "Runs a minute for this key; null: the gateway's default" }),
  })
  .strict()
  .refine(
    (body) => Object.keys(body).length > 0,
    "name at least one of allow, dailyCap, toolCaps, ratePerMinute",
  )
  .openapi("KeyPolicyChange");

export const KeyPolicySchema = z
  .object({
    keyId: z.string(),
    allow: z.array(z.string()).nullable(),
    dailyCap: z.string().nullable(),
    toolCaps: z.record(z.string(), z.string()),
    ratePerMinute: z.int().nullable(),
  })
  .openapi("KeyPolicy");

/** Amounts read exactly (the body's schema already holds them to decimal strings). */
const micro = (amount: string) => parseUsd(amount) ?? 0n;

function changeOf(body: z.infer<typeof KeyPolicyBody>): PolicyChange {
  const change: PolicyChange = {};
  if (body.allow !== undefined) change.allow = body.allow;
  if (body.dailyCap !== undefined)
    change.dailyCapMicro = body.dailyCap === null ? null : micro(body.dailyCap);
  if (body.toolCaps !== undefined) {
    change.toolCapsMicro =
      body.toolCaps === null
        ? null
        : Object.fromEntries(Object.entries(body.toolCaps).map(([tool, cap]) => [tool, micro(cap)]));
  }
  if (body.ratePerMinute !== undefined) change.ratePerMinute = body.ratePerMinute;
  return change;
}

/** Whose keys a request may set policies of: its account, and the key it was sent with, if any. */
type Owner = { accountId: string; actingKeyId?: string };

type OwnerEnv = { Variables: { owner: Owner; caller: Caller } };

/**
 * Who may set a key's policy, checked before the body is read: a gateway key of the key's account
 * (`Authorization: Bearer`), or, on a gateway with self-serve accounts, the account's owning
 * wallet signed in (`SIGN-IN-WITH-X`, for this key's URL) when no `Authorization` is sent.
 */
function ownerGuard(deps: GatewayDeps, selfServe: SelfServeDeps | undefined): MiddlewareHandler<OwnerEnv> {
  const keyGuard = gatewayKeyGuard(deps) as unknown as MiddlewareHandler<OwnerEnv>;
  return async (c, next) => {
    if (selfServe && requestHeader(c, "authorization") === undefined) {
      const path = new URL(c.req.url).pathname;
      const account = await signedInAccountOf(
        c,
        selfServe,
        path,
        "Set the policy of a key of your wallet's account",
      );
      c.set("owner", { accountId: account.id });
      return next();
    }
    return keyGuard(c, async () => {
      c.set("owner", { accountId: c.var.caller.accountId, actingKeyId: c.var.caller.keyId });
      await next();
    });
  };
}

/**
 * PATCH /v1/keys/{id}: sets parts of the policy of a key of the caller's account (what it may see
 * and run, its daily spend caps, its rate). Sent with a gateway key of the account that has no
 * policy itself (a limited key cannot lift its own limits, nor another's: 403), or signed in with
 * the account's wallet. A key of another account, or revoked, is 404 `KEY_NOT_FOUND`. The change
 * holds at once on this instance and within a second on the others.
 */
export function registerKeyPolicyUpdate(
  app: GatewayApp,
  deps: GatewayDeps,
  selfServe: SelfServeDeps | undefined,
): void {
  const policies = new KeyPolicyStore(deps.db);
  const tools = deps.registry
    .tools()
    .map((tool) => ({ provider: tool.provider.id, endpoint: tool.endpoint, method: tool.method }));
  const route = createRoute({
    method: "patch",
    path: "/v1/keys/{id}",
    operationId: "key_policy_update",
    tags: ["Accounts"],
    summary: "Set a key's policy",
    description:
      "Each field given replaces that part of the key's policy (null clears it): `allow` (the providers and tools the key may see and run; others are unknown to it), `dailyCap` (USD per UTC day, every tool together), `toolCaps` (USD per UTC day per tool), `ratePerMinute`. Send a gateway key of the account that has no policy of its own, or sign in with the account's wallet (SIGN-IN-WITH-X). Holds at once on this instance, within a second on the others.",
    security: selfServe ? [...GATEWAY_KEY_SECURITY, { siwx: [] }] : GATEWAY_KEY_SECURITY,
    middleware: ownerGuard(deps, selfServe),
    request: {
      params: KeyPathSchema,
      body: { required: true, content: { "application/json": { schema: KeyPolicyBody } } },
    },
    responses: {
      200: jsonResponse(KeyPolicySchema, "The key's policy, as it now stands"),
      400: errorResponseSpec(
        "The body is not a policy change, or names a provider or tool the gateway does not have (VALIDATION_FAILED, with `issues`)",
      ),
      401: COMMON_RESPONSES[401],
      ...(selfServe ? SIGN_IN_RESPONSES : {}),
      403: errorResponseSpec("The key sent has a policy of its own (FORBIDDEN)"),
      404: errorResponseSpec("The account has no active key with this id (KEY_NOT_FOUND)"),
    },
  });
  app.openapi(route, async (c) => {
    const { id } = c.req.valid("param");
    const owner = c.var.owner as Owner;
    if (owner.actingKeyId !== undefined && isLimited(await policies.get(owner.actingKeyId))) {
      throw new ApiError(
        "FORBIDDEN",
        "This key has a policy of its own, so it cannot set policies: use a key of the account without one, or sign in with the account's wallet.",
      );
    }
    const change = changeOf(c.req.valid("json"));
    const issues = policyChangeIssues(change, tools);
    if (issues.length > 0) throw new ApiError("VALIDATION_FAILED", "The policy is not valid.", { issues });
    const policy = await policies.change(id, change, owner.accountId);
    if (!policy)
      throw new GatewayError("KEY_NOT_FOUND", "This account has no active key with this id.", { keyId: id });
    c.header("Cache-Control", "no-store");
    return c.json({ keyId: id, ...policyView(policy) }, 200);
  });
}

import { createRoute, errorResponseSpec, jsonResponse, z } from "@app/core";
import type { SelfServeDeps } from "../self-serve/deps.ts";
import {
  IssuedKeySchema,
  issuedKeyView,
  LabelSchema,
  SIGN_IN_RESPONSES,
  SIWX_SECURITY,
} from "./self-serve-shared.ts";
import type { GatewayApp } from "./shared.ts";
import { KEYS_SIGN_IN, signedInAccountOf } from "./wallet-sign-in.ts";

const KeyCreateBody = z.object({ label: LabelSchema.optional() }).strict().openapi("KeyCreateBody");

/** POST /v1/keys: a new gateway key for the signed-in wallet's account, shown once. */
export function registerKeysCreate(app: GatewayApp, deps: SelfServeDeps): void {
  const route = createRoute({
    method: "post",
    path: "/v1/keys",
    operationId: "keys_create",
    tags: ["Accounts"],
    summary: "A new gateway key (shown once)",
    description:
      "Signed in with the account's owning wallet (Sign-In-With-X), so a wallet without a key can get one. The key is in the answer once and never again.",
    security: SIWX_SECURITY,
    request: { body: { required: false, content: { "application/json": { schema: KeyCreateBody } } } },
    responses: {
      201: jsonResponse(IssuedKeySchema, "The key, shown once, and its record"),
      400: errorResponseSpec("The body is not `{label?}` (VALIDATION_FAILED)"),
      ...SIGN_IN_RESPONSES,
      404: errorResponseSpec("The wallet owns no account (ACCOUNT_NOT_FOUND)"),
    },
  });
  app.openapi(route, async (c) => {
    const body = c.req.valid("json") ?? {};
    const account = await signedInAccountOf(c, deps, route.path, KEYS_SIGN_IN);
    const issued = await deps.wallets.issueKey(account.id, body.label ?? "");
    c.header("Cache-Control", "no-store");
    return c.json(issuedKeyView(issued), 201);
  });
}

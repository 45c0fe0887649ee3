import { createRoute, errorResponseSpec, jsonResponse, z } from "@app/core";
import type { SelfServeDeps } from "../self-serve/deps.ts";
import { KeySchema, keyView, SIGN_IN_RESPONSES, SIWX_SECURITY } from "./self-serve-shared.ts";
import type { GatewayApp } from "./shared.ts";
import { KEYS_SIGN_IN, signedInAccountOf } from "./wallet-sign-in.ts";

export const KeyListSchema = z.object({ keys: z.array(KeySchema) }).openapi("GatewayKeyList");

/** GET /v1/keys: the signed-in wallet's account's keys, oldest first (never a key or its hash). */
export function registerKeysList(app: GatewayApp, deps: SelfServeDeps): void {
  const route = createRoute({
    method: "get",
    path: "/v1/keys",
    operationId: "keys_list",
    tags: ["Accounts"],
    summary: "Your account's keys",
    description:
      "Signed in with the account's owning wallet (Sign-In-With-X). Ids, prefixes, labels and dates only.",
    security: SIWX_SECURITY,
    responses: {
      200: jsonResponse(KeyListSchema, "The account's keys, revoked ones included"),
      ...SIGN_IN_RESPONSES,
      404: errorResponseSpec("The wallet owns no account (ACCOUNT_NOT_FOUND)"),
    },
  });
  app.openapi(route, async (c) => {
    const account = await signedInAccountOf(c, deps, route.path, KEYS_SIGN_IN);
    const keys = await deps.accounts.listKeys(account.id);
    c.header("Cache-Control", "no-store");
    return c.json({ keys: keys.map(keyView) }, 200);
  });
}

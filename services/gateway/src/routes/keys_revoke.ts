import { createRoute, errorResponseSpec, jsonResponse } from "@app/core";
import { revokeAccountKey } from "../self-serve/accounts.ts";
import type { SelfServeDeps } from "../self-serve/deps.ts";
import { KeyPathSchema, KeySchema, keyView, SIGN_IN_RESPONSES, SIWX_SECURITY } from "./self-serve-shared.ts";
import type { GatewayApp } from "./shared.ts";
import { signedInAccountOf } from "./wallet-sign-in.ts";

/** DELETE /v1/keys/{id}: revokes a key of the signed-in wallet's account; any other id is 404. */
export function registerKeysRevoke(app: GatewayApp, deps: SelfServeDeps): void {
  const route = createRoute({
    method: "delete",
    path: "/v1/keys/{id}",
    operationId: "keys_revoke",
    tags: ["Accounts"],
    summary: "Revoke a key",
    description:
      "Signed in with the account's owning wallet (Sign-In-With-X), for this key's URL. The key is refused at once on this instance and within a second on the others; revoking a revoked key answers it as it is.",
    security: SIWX_SECURITY,
    request: { params: KeyPathSchema },
    responses: {
      200: jsonResponse(KeySchema, "The key's record, revoked"),
      ...SIGN_IN_RESPONSES,
      404: errorResponseSpec(
        "The wallet owns no account (ACCOUNT_NOT_FOUND), or its account no key with this id (KEY_NOT_FOUND)",
      ),
    },
  });
  app.openapi(route, async (c) => {
    const { id } = c.req.valid("param");
    const path = new URL(c.req.url).pathname;
    const account = await signedInAccountOf(c, deps, path, "Revoke a key of your wallet's account");
    const revoked = await revokeAccountKey(deps, account.id, id);
    c.header("Cache-Control", "no-store");
    return c.json(keyView(revoked), 200);
  });
}

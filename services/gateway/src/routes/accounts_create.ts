import { createRoute, errorResponseSpec, jsonResponse, z } from "@app/core";
import { usd } from "../domain/money.ts";
import { openWalletAccount } from "../self-serve/accounts.ts";
import type { SelfServeDeps } from "../self-serve/deps.ts";
import {
  IssuedKeySchema,
  issuedKeyView,
  SIGN_IN_RESPONSES,
  SIWX_SECURITY,
  UsdSchema,
} from "./self-serve-shared.ts";
import type { GatewayApp } from "./shared.ts";
import { signedInWalletOf } from "./wallet-sign-in.ts";

const AccountCreateBody = z
  .object({ name: z.string().trim().min(1).max(100).optional() })
  .strict()
  .openapi("AccountCreateBody");

export const AccountSchema = z
  .object({
    id: z.string(),
    name: z.string(),
    wallet: z.string().openapi({ description: "The owning wallet, lower-case" }),
    balance: UsdSchema,
    createdAt: z.string(),
  })
  .openapi("GatewayAccount");

export const AccountCreatedSchema = z
  .object({ account: AccountSchema, key: IssuedKeySchema })
  .openapi("AccountCreated");

/**
 * POST /v1/accounts: opens a gateway account owned by the signed-in wallet, with its first key
 * (shown once). One account per wallet: a second call is 409 `ACCOUNT_EXISTS` naming it.
 */
export function registerAccountsCreate(app: GatewayApp, deps: SelfServeDeps): void {
  const route = createRoute({
    method: "post",
    path: "/v1/accounts",
    operationId: "accounts_create",
    tags: ["Accounts"],
    summary: "Open an account owned by your wallet",
    description:
      "Sign in with the wallet (Sign-In-With-X): without a `SIGN-IN-WITH-X` header the answer is a 402 whose `PAYMENT-REQUIRED` carries the sign-in challenge for this URL. Answers the account and its first gateway key, shown once.",
    security: SIWX_SECURITY,
    request: {
      body: { required: false, content: { "application/json": { schema: AccountCreateBody } } },
    },
    responses: {
      201: jsonResponse(
        AccountCreatedSchema,
        "The account, owned by the wallet, and its first key (shown once)",
      ),
      400: errorResponseSpec("The body is not `{name?}` (VALIDATION_FAILED)"),
      ...SIGN_IN_RESPONSES,
      409: errorResponseSpec("The wallet already owns an account (ACCOUNT_EXISTS, with `accountId`)"),
    },
  });
  app.openapi(route, async (c) => {
    const body = c.req.valid("json") ?? {};
    const identity = await signedInWalletOf(
      c,
      deps,
      route.path,
      "Open a gateway account owned by your wallet",
    );
    const { account, key } = await openWalletAccount(deps, identity.wallet, body.name);
    c.header("Cache-Control", "no-store");
    return c.json(
      {
        account: {
          id: account.id,
          name: account.name,
          wallet: account.wallet,
          balance: usd(account.balanceMicro),
          createdAt: account.createdAt.toISOString(),
        },
        key: issuedKeyView(key),
      },
      201,
    );
  });
}

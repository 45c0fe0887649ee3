import { createRoute, errorResponseSpec, jsonResponse, z } from "@app/core";
import { accountView } from "../views/account.ts";
import { AccountSchema } from "./schemas.ts";
import type { MarketsApp, RouteDeps } from "./shared.ts";

const CreateAccount = z
  .object({ label: z.string().trim().min(1).max(64).optional().openapi({ example: "my strategy" }) })
  .openapi("CreatePaperAccount");

/** POST /pm/paper/accounts: opens a paper account; its token is shown in this response only. */
export function registerPaperAccountCreate(app: MarketsApp, deps: RouteDeps): void {
  const route = createRoute({
    method: "post",
    path: "/pm/paper/accounts",
    operationId: "paper_account_create",
    tags: ["Paper trading"],
    summary: "Open a paper account",
    request: { body: { required: false, content: { "application/json": { schema: CreateAccount } } } },
    responses: {
      201: jsonResponse(
        z.object({
          account: AccountSchema,
          token: z
            .string()
            .openapi({ description: "Bearer token of the account: shown once, stored hashed" }),
        }),
        "The account and its token",
      ),
      400: errorResponseSpec("Invalid body"),
    },
  });
  app.openapi(route, async (c) => {
    const body = c.req.valid("json") ?? {};
    const { account, token } = await deps.accounts.create(deps.startingBalanceMicro, body.label ?? null);
    c.header("Cache-Control", "no-store");
    return c.json({ account: accountView(account), token }, 201);
  });
}

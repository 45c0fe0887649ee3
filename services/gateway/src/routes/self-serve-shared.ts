import { errorResponseSpec, z } from "@app/core";
import type { KeyRecord } from "../store/accounts.ts";
import type { IssuedWalletKey } from "../store/wallet-accounts.ts";

/** Self-serve routes are signed in with the owning wallet (Sign-In-With-X). */
export const SIWX_SECURITY = [{ siwx: [] }];

/** The 402 of a route signed in with the wallet, as discovery names it. */
export const SIGN_IN_RESPONSES = {
  402: errorResponseSpec(
    "Authentication Required: sign the SIWX challenge in PAYMENT-REQUIRED (`extensions['sign-in-with-x']`) and send it as SIGN-IN-WITH-X; `error` says what was wrong (siwx_missing_header, siwx_malformed, siwx_invalid_signature, siwx_expired, siwx_nonce_used, siwx_wrong_resource)",
  ),
} as const;

export const UsdSchema = z
  .object({ amount: z.string().openapi({ example: "0.5" }), currency: z.literal("USD") })
  .openapi("Usd");

export const KeySchema = z
  .object({
    id: z.string(),
    prefix: z.string().openapi({ description: "The key's first characters, to recognise it" }),
    label: z.string(),
    createdAt: z.string(),
    lastUsedAt: z.string().nullable(),
    revokedAt: z.string().nullable(),
  })
  .openapi("GatewayKey");

export const IssuedKeySchema = KeySchema.extend({
  key: z.string().openapi({ description: "The key itself (`gwk_…`): shown once, never again" }),
}).openapi("IssuedGatewayKey");

export const LabelSchema = z.string().trim().min(1).max(100);

/** `/v1/keys/{id}`'s path parameter: a key's id. */
export const KeyPathSchema = z.object({
  id: z
    .string()
    .min(1)
    .max(100)
    .openapi({ param: { name: "id", in: "path" }, example: "key_01J…" }),
});

const iso = (date: Date | null) => (date ? date.toISOString() : null);

/** A key's record as answered: never the key, never its hash. */
export function keyView(record: KeyRecord): z.infer<typeof KeySchema> {
  return {
    id: record.id,
    prefix: record.prefix,
    label: record.label,
    createdAt: record.createdAt.toISOString(),
    lastUsedAt: iso(record.lastUsedAt),
    revokedAt: iso(record.revokedAt),
  };
}

/** A key just issued, as answered that once: its record and the key itself. */
export function issuedKeyView(issued: IssuedWalletKey): z.infer<typeof IssuedKeySchema> {
  return { ...keyView(issued.record), key: issued.key };
}

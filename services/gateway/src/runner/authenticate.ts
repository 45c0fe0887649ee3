import { GatewayError } from "../errors.ts";
import type { Caller } from "../store/accounts.ts";
import type { KeyCache } from "../store/key-cache.ts";

const BEARER = /^Bearer\s+(\S+)\s*$/i;

/** The `WWW-Authenticate` challenge of every 401. */
export const BEARER_CHALLENGE = { "WWW-Authenticate": 'Bearer realm="gateway"' };

/** The caller whose gateway key an `Authorization: Bearer <key>` header carries; 401 otherwise. */
export async function authenticate(keys: KeyCache, authorization: string | undefined): Promise<Caller> {
  const key = authorization ? BEARER.exec(authorization)?.[1] : undefined;
  if (!key) {
    throw new GatewayError(
      "UNAUTHORIZED",
      "Send your gateway key as `Authorization: Bearer <key>`.",
      {},
      BEARER_CHALLENGE,
    );
  }
  const caller = await keys.authenticate(key);
  if (!caller) {
    throw new GatewayError(
      "UNAUTHORIZED",
      "This gateway key is not valid, or it was revoked.",
      {},
      BEARER_CHALLENGE,
    );
  }
  return caller;
}

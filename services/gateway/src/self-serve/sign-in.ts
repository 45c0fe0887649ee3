import { refusal, type SiwxAuthenticator, SiwxError, type SiwxIdentity } from "@app/payments";
import type { SelfServeChallenges } from "./challenges.ts";

/**
 * The wallet behind a request's `SIGN-IN-WITH-X` header, signed for the resource at `path` (the
 * shared check of `@app/payments`, as the fortune service's); else the 402 with the refusal's
 * reason and a fresh sign-in challenge for `path` is thrown. How a wallet with no key proves it
 * owns (or may open) a gateway account.
 */
export async function signedInWallet(
  deps: { siwx: SiwxAuthenticator; challenges: SelfServeChallenges },
  header: string | undefined,
  path: string,
  description: string,
): Promise<SiwxIdentity> {
  try {
    return await deps.siwx.authenticate(header, path);
  } catch (error) {
    if (!(error instanceof SiwxError)) throw error;
    throw await deps.challenges.signInRequired(path, description, refusal(error.code, error.message));
  }
}

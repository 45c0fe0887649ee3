/**
 * AUDIT: SIWX across instances with a small clock skew. The challenge's issuedAt comes from the
 * issuing instance's clock; validateSIWxMessage (@x402/extensions) checks it against Date.now() on
 * the instance that receives the sign-in, and refuses an issuedAt "in the future" with no
 * tolerance. Behind a load balancer, an instance whose clock is 2 s behind the issuer refuses every
 * sign-in answered within those 2 s as `siwx_malformed` (not even `siwx_expired`). The nonce already
 * carries the server-signed issue time, so the library's issuedAt-in-future check adds nothing but
 * this failure.
 */
import { LOCAL_DEV_ACCOUNTS } from "@app/local-chain";
import { SiwxAuthenticator } from "@app/payments";
import { migrateService } from "@app/runtime";
import { test } from "@app/testkit";
import {
  createSIWxPayload,
  encodeSIWxHeader,
  SIGN_IN_WITH_X,
  type SIWxExtension,
} from "@x402/extensions/sign-in-with-x";
import { privateKeyToAccount } from "viem/accounts";
import { describe, expect } from "vitest";
import { fortuneService } from "../../src/service.ts";

const PATH = "/api/fortune/profile";

describe("AUDIT: SIWX between two instances whose clocks differ by 2 seconds", () => {
  test("a sign-in issued by the instance ahead is accepted by the instance behind", async ({ db }) => {
    await migrateService(fortuneService, db);
    const shared = {
      service: "fortune",
      spentNonces: "fortune.siwx_spent_nonces",
      origin: () => new URL("http://fortune.test"),
      network: "eip155:1337" as const,
      nonceSecret: "shared-instance-secret",
    };
    const ahead = new SiwxAuthenticator(db, {
      ...shared,
      clock: { now: () => new Date(Date.now() + 2_000) },
    });
    const behind = new SiwxAuthenticator(db, { ...shared, clock: { now: () => new Date() } });

    const challenge = (await ahead.challenge(PATH))[SIGN_IN_WITH_X] as SIWxExtension;
    const chain = challenge.supportedChains[0] as { chainId: string; type: "eip191" };
    const payload = await createSIWxPayload(
      { ...challenge.info, chainId: chain.chainId, type: chain.type },
      privateKeyToAccount(LOCAL_DEV_ACCOUNTS.payer.privateKey),
      challenge.info.uri,
    );
    const identity = await behind
      .authenticate(encodeSIWxHeader(payload), PATH)
      .catch((error: Error) => error);
    expect(identity).not.toBeInstanceOf(Error);
    expect((identity as { wallet: string }).wallet).toBe(LOCAL_DEV_ACCOUNTS.payer.address.toLowerCase());
  });
});

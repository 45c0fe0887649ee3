import { createServiceApp, type ServiceApp, systemClock } from "@app/core";
import type { Database } from "@app/db";
import type { MppRail } from "@app/payments";
import { SiwxAuthenticator } from "@app/payments";
import { migrateService } from "@app/runtime";
import { silentLogger } from "@app/testkit";
import { PaymentGate } from "../../src/payments/gate.ts";
import { PaymentReconciler } from "../../src/payments/reconciler.ts";
import type { FakeX402Rail } from "../../src/payments/x402-rail.fake.ts";
import { registerFortune } from "../../src/routes/fortune.ts";
import { registerFortunePremium } from "../../src/routes/fortune_premium.ts";
import type { RouteDeps } from "../../src/routes/shared.ts";
import { fortuneService } from "../../src/service.ts";
import { EntitlementStore } from "../../src/store/entitlements.ts";
import { FavoritesStore } from "../../src/store/favorites.ts";
import { fortuneIdempotencyStore } from "../../src/store/idempotency.ts";
import { PaymentLedger } from "../../src/store/ledger.ts";
import { PremiumUsage } from "../../src/store/premium-usage.ts";
import { LocalFortuneWriter } from "../../src/text/local-writer.ts";

/** The payment gate on a fake x402 rail and a real database, with the fortune and premium routes. */
export type GateHarness = {
  app: ServiceApp;
  gate: PaymentGate;
  ledger: PaymentLedger;
  reconciler: PaymentReconciler;
};

/** Builds the harness on `db`, emptied of earlier tests' payments (the database is shared by a file's tests). */
export async function gateOn(db: Database, rail: FakeX402Rail, mpp?: MppRail): Promise<GateHarness> {
  await migrateService(fortuneService, db);
  await db.exec(`DELETE FROM fortune.entitlements; DELETE FROM fortune.premium_usage;
    DELETE FROM edge.idempotency_keys WHERE namespace = 'fortune'; DELETE FROM fortune.payments;`);
  const origin = () => new URL("http://fortune.test");
  const clock = systemClock;
  const logger = silentLogger();
  const siwx = new SiwxAuthenticator(db, {
    service: "fortune",
    spentNonces: "fortune.siwx_spent_nonces",
    origin,
    network: rail.network,
    clock,
    nonceSecret: "test-nonce-secret",
  });
  const ledger = new PaymentLedger(db);
  const idempotency = fortuneIdempotencyStore(db, clock);
  const premium = new PremiumUsage(db, { perCategory: 3, windowMs: 86_400_000 }, clock);
  const gate = new PaymentGate({
    x402: rail,
    mpp,
    siwx,
    ledger,
    idempotency,
    entitlements: new EntitlementStore(db),
    origin,
    clock,
    logger,
    onPaymentFailed: (paymentId) => premium.releaseForPayment(paymentId),
  });
  const app = createServiceApp({
    name: "gate",
    title: "Gate",
    version: "1",
    logger,
    checkReady: async () => undefined,
  });
  const deps: RouteDeps = {
    gate,
    // These tests pay by x402 only.
    mpp: {} as MppRail,
    siwx,
    favorites: new FavoritesStore(db),
    premium,
    writer: new LocalFortuneWriter(),
    clock,
    mppCurrency: "0x20c0000000000000000000000000000000000000",
    mppMethod: "tempo",
  };
  registerFortune(app, deps);
  registerFortunePremium(app, deps);
  const reconciler = new PaymentReconciler({
    ledger,
    idempotency,
    settlements: gate.settlements,
    mppCharges: gate.mppCharges,
    clock,
    logger,
  });
  return { app, gate, ledger, reconciler };
}

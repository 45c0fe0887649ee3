import { systemClock } from "@app/core";
import { SiwxAuthenticator } from "@app/payments";
import type { ServiceDefinition } from "@app/runtime";
import { createApp } from "./app.ts";
import { type FortuneConfig, loadFortuneConfig } from "./config.ts";
import { PaymentGate } from "./payments/gate.ts";
import { PaymentReconciler } from "./payments/reconciler.ts";
import { SessionBilling } from "./payments/session-billing.ts";
import { describeFailure, SessionSettler } from "./payments/session-settler.ts";
import { type LocalChainProvider, startRails } from "./rails.ts";
import { EntitlementStore } from "./store/entitlements.ts";
import { FavoritesStore } from "./store/favorites.ts";
import { startHousekeeping } from "./store/housekeeping.ts";
import { fortuneIdempotencyStore } from "./store/idempotency.ts";
import { PaymentLedger } from "./store/ledger.ts";
import { PremiumUsage } from "./store/premium-usage.ts";
import type { FortuneWriter } from "./text/generator.ts";
import { LocalFortuneWriter } from "./text/local-writer.ts";
import { OpenAiCompatibleWriter } from "./text/openai-writer.ts";

/** What a launcher gives the fortune service. */
export type FortuneServiceOptions = {
  /**
   * The chain for `FORTUNE_RAILS=local`. Production entry points pass none (hosted rails only); the
   * launcher, the service's local entry and test harnesses pass one built on `@app/local-chain`.
   */
  localChain?: LocalChainProvider;
};

/** How the runtime starts the fortune service: rails (a provided local chain or hosted), stores, gate, app. */
export function createFortuneService(options: FortuneServiceOptions = {}): ServiceDefinition<FortuneConfig> {
  return {
    name: "fortune",
    title: "Fortune API",
    loadConfig: loadFortuneConfig,
    migrations: new URL("../migrations/", import.meta.url),
    async build({ config, db, logger }) {
      const rails = await startRails(
        config,
        db,
        logger,
        {
          // mppx reports a client's close here (and swallows errors: they are logged).
          onSessionSettlement: ({ channelId, txHash, amount, trigger }) =>
            sessionBilling
              .settled({ channelId, txHash, amount, closed: trigger === "close" })
              .catch((error: unknown) =>
                logger.error(
                  { channelId, reason: describeFailure(error) },
                  "could not record a session settlement",
                ),
              ),
        },
        options.localChain,
      );
      const sessionBilling = new SessionBilling(db, rails.sessionChannels);
      const sessionSettler = new SessionSettler({
        db,
        channels: rails.sessionChannels,
        billing: sessionBilling,
        logger,
        intervalMs: config.sessionSettleMs,
      });
      // The public origin SIWX is checked against: configured, or where the service listens.
      let origin = new URL(config.publicUrl ?? `http://${config.host}:${config.port}`);
      const clock = systemClock;
      const siwx = new SiwxAuthenticator(db, {
        service: "fortune",
        spentNonces: "fortune.siwx_spent_nonces",
        origin: () => origin,
        network: rails.x402.network,
        clock,
        nonceSecret: rails.secret,
      });
      const ledger = new PaymentLedger(db);
      const idempotency = fortuneIdempotencyStore(db, clock);
      const premium = new PremiumUsage(db, config.premiumLimit, clock);
      const gate = new PaymentGate({
        x402: rails.x402,
        mpp: rails.mpp,
        siwx,
        ledger,
        idempotency,
        entitlements: new EntitlementStore(db),
        origin: () => origin,
        clock,
        logger,
        onPaymentFailed: (paymentId) => premium.releaseForPayment(paymentId),
      });
      const writer: FortuneWriter = config.text
        ? new OpenAiCompatibleWriter(config.text)
        : new LocalFortuneWriter();
      const app = createApp({
        db,
        logger,
        clock,
        gate,
        siwx,
        writer,
        favorites: new FavoritesStore(db),
        premium,
        mpp: rails.mpp,
        sessionBilling,
        mppCurrency: rails.mppCurrency,
        mppMethod: "tempo",
        origin: () => origin,
      });
      const stopHousekeeping = startHousekeeping(db, clock, logger);
      const stopReconciler = new PaymentReconciler({
        ledger,
        idempotency,
        settlements: gate.settlements,
        mppCharges: gate.mppCharges,
        clock,
        logger,
      }).start();
      sessionSettler.start();
      return {
        app,
        credentials: rails.credentials,
        onListening(url) {
          if (!config.publicUrl) origin = new URL(url);
        },
        async stop() {
          stopHousekeeping();
          stopReconciler();
          await sessionSettler.stop();
          await rails.stop();
        },
      };
    },
  };
}

/** The fortune service as production runs it: hosted rails (`FORTUNE_RAILS=local` refuses to start). */
export const fortuneService: ServiceDefinition<FortuneConfig> = createFortuneService();

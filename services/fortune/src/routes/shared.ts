import type { Clock, ServiceApp } from "@app/core";
import { z } from "@app/core";
import type { SiwxAuthenticator } from "../identity/siwx.ts";
import type { PaymentGate } from "../payments/gate.ts";
import type { MppRail } from "../payments/mpp-rail.ts";
import type { FavoritesStore } from "../store/favorites.ts";
import type { PremiumUsage } from "../store/premium-usage.ts";
import type { FortuneWriter } from "../text/generator.ts";

/** What the fortune routes are built from. */
export type RouteDeps = {
  gate: PaymentGate;
  /** MPP sessions (llm, stream) go to the rail directly: the MPP server meters them. */
  mpp: MppRail;
  siwx: SiwxAuthenticator;
  favorites: FavoritesStore;
  premium: PremiumUsage;
  writer: FortuneWriter;
  clock: Clock;
  /** The MPP currency advertised in discovery (a token address). */
  mppCurrency: string;
  mppMethod: string;
};

export type FortuneApp = ServiceApp;

type Price = { mode: "fixed"; amount: string } | { mode: "dynamic"; min: string; max: string };

/** The discovery block of a paid operation, in the agentcash format. */
export function paymentInfo(deps: RouteDeps, price: Price, protocols: ("x402" | "mpp")[]) {
  return {
    "x-payment-info": {
      price: { ...price, currency: "USD" },
      protocols: protocols.map((protocol) =>
        protocol === "x402"
          ? { x402: {} }
          : { mpp: { method: deps.mppMethod, intent: "charge", currency: deps.mppCurrency } },
      ),
    },
  };
}

export const PAID_RESPONSES = {
  402: { description: "Payment Required" },
} as const;

export const SIWX_RESPONSES = {
  402: { description: "Authentication Required" },
} as const;

export const SIWX_SECURITY = [{ siwx: [] }];

export const FortuneBody = z.object({ fortune: z.string(), timestamp: z.string() }).openapi("Fortune");

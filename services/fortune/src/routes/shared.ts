import type { Clock, ServiceApp } from "@app/core";
import { z } from "@app/core";
import {
  type DiscoveryPrice,
  type MppRail,
  type SiwxAuthenticator,
  paymentInfo as sharedPaymentInfo,
} from "@app/payments";
import type { PaymentGate } from "../payments/gate.ts";
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

/** The discovery block of a paid operation, in the agentcash format (`@app/payments` builds it). */
export function paymentInfo(deps: RouteDeps, price: DiscoveryPrice, protocols: ("x402" | "mpp")[]) {
  return sharedPaymentInfo(price, protocols, { method: deps.mppMethod, currency: deps.mppCurrency });
}

export const PAID_RESPONSES = {
  402: { description: "Payment Required" },
} as const;

export const SIWX_RESPONSES = {
  402: { description: "Authentication Required" },
} as const;

export const SIWX_SECURITY = [{ siwx: [] }];

export const FortuneBody = z.object({ fortune: z.string(), timestamp: z.string() }).openapi("Fortune");

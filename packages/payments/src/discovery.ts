/**
 * Discovery of paid operations, in the agentcash format every service uses: the `x-payment-info`
 * block of an OpenAPI operation, and the `/.well-known/x402` resource list derived from the
 * operations that carry one.
 *
 * @module
 */

/** A paid operation's price in USD: fixed, or derived from the request within bounds. */
export type DiscoveryPrice =
  | { mode: "fixed"; amount: string }
  | { mode: "dynamic"; min: string; max: string };

/** How MPP is paid on a service (the same for every operation): the method and the token. */
export type MppDiscovery = { method: string; currency: string };

/** The discovery block of a paid operation: spread it into the operation's `createRoute`. */
export function paymentInfo(price: DiscoveryPrice, protocols: ("x402" | "mpp")[], mpp: MppDiscovery) {
  return {
    "x-payment-info": {
      price: { ...price, currency: "USD" },
      protocols: protocols.map((protocol) =>
        protocol === "x402"
          ? { x402: {} }
          : { mpp: { method: mpp.method, intent: "charge", currency: mpp.currency } },
      ),
    },
  };
}

type PaymentInfo = { protocols?: Record<string, unknown>[] };

/** An OpenAPI document, as far as discovery reads it. */
export type OpenApiPaths = { paths?: Record<string, object | undefined> };

/** The paths of the operations an OpenAPI document declares paid (`x-payment-info`), and which of them take MPP. */
export function paidPaths(document: OpenApiPaths): { paid: string[]; mpp: string[] } {
  const paid: string[] = [];
  const mpp: string[] = [];
  for (const [path, operations] of Object.entries(document.paths ?? {})) {
    for (const operation of Object.values(operations ?? {})) {
      const info = (operation as { "x-payment-info"?: PaymentInfo } | undefined)?.["x-payment-info"];
      if (!info) continue;
      paid.push(path);
      if (info.protocols?.some((protocol) => "mpp" in protocol)) mpp.push(path);
    }
  }
  return { paid, mpp };
}

/** The `/.well-known/x402` document: every paid resource's URL, those MPP pays, and guidance. */
export function wellKnownX402(
  declared: { paid: string[]; mpp: string[] },
  origin: URL,
  instructions: string,
) {
  return {
    version: 1,
    resources: declared.paid.map((path) => new URL(path, origin).toString()),
    mppResources: declared.mpp.map((path) => new URL(path, origin).toString()),
    instructions,
  };
}

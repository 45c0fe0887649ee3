import { z } from "@app/core";
import type { ProviderDeclaration } from "../../src/registry/types.ts";
import { type FakeServer, sendJson, startServer } from "./fake-upstreams.ts";

/** The price of the test's priced tool: 0.25 USD. */
export const PRICE_MICRO = 250_000n;

/** A provider with one priced tool, registered by tests only (the spec's tools are free). */
export const PRICED_PROVIDER: ProviderDeclaration = {
  id: "priced",
  name: "Priced test upstream",
  upstreamKeyHeader: null,
  tools: [
    {
      name: "Priced echo",
      endpoint: "/echo",
      method: "GET",
      description: "Answers what it was asked, for 0.25 USD.",
      queryParams: z.object({ status: z.string().optional() }).strict(),
      pathParams: z.object({}).strict(),
      priceMicro: PRICE_MICRO,
    },
  ],
};

export const pricedRun = (status?: string) => ({
  provider: "priced",
  endpoint: "/echo",
  method: "GET",
  input: status ? { queryParams: { status } } : {},
});

/** The priced tool's upstream: 200 `{ok: true}`, or the status asked for in `status`. */
export function pricedUpstream(): Promise<FakeServer> {
  return startServer((_req, res, url) =>
    sendJson(res, Number(url.searchParams.get("status") ?? "200"), { ok: true }),
  );
}

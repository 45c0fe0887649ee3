import { describe, expect } from "vitest";
import { PRICES } from "../../src/domain/pricing.ts";
import { fortuneTest as test } from "../../testing/index.ts";

type Operation = {
  "x-payment-info"?: { protocols: Record<string, unknown>[]; price: Record<string, string> };
};

describe("discovery", () => {
  test("/.well-known/x402 lists exactly the operations that declare a price, and those taking MPP", async ({
    fortune,
  }) => {
    const openapi = (await (await fetch(`${fortune.url}/openapi.json`)).json()) as {
      paths: Record<string, Record<string, Operation>>;
    };
    const declared = Object.entries(openapi.paths).flatMap(([path, operations]) =>
      Object.values(operations)
        .filter((operation) => operation["x-payment-info"])
        .map((operation) => ({ path, protocols: operation["x-payment-info"]?.protocols ?? [] })),
    );
    const known = (await (await fetch(`${fortune.url}/.well-known/x402`)).json()) as {
      resources: string[];
      mppResources: string[];
    };
    const pathsOf = (urls: string[]) => urls.map((url) => new URL(url).pathname).sort();
    expect(pathsOf(known.resources)).toEqual(declared.map((d) => d.path).sort());
    expect(pathsOf(known.mppResources)).toEqual(
      declared
        .filter((d) => d.protocols.some((p) => "mpp" in p))
        .map((d) => d.path)
        .sort(),
    );
    expect(pathsOf(known.resources)).toContain("/api/fortune/premium");
  });

  test("the guidance states the price table's prices", async ({ fortune }) => {
    const text = await (await fetch(`${fortune.url}/llms.txt`)).text();
    for (const price of [
      PRICES.fortune,
      PRICES.premiumMax,
      PRICES.llmUnit,
      PRICES.streamUnit,
      PRICES.membershipCharge,
    ]) {
      expect(text).toContain(`$${price}`);
    }
  });
});

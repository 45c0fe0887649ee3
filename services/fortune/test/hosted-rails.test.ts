import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { silentLogger, test } from "@app/testkit";
import { afterEach, describe, expect } from "vitest";
import { loadFortuneConfig } from "../src/config.ts";
import { startRails } from "../src/rails.ts";

/** A facilitator that answers `/supported` with these kinds, and records the auth it was sent. */
async function facilitator(kinds: { scheme: string; network: string }[]) {
  const seen: (string | undefined)[] = [];
  const server = createServer((req, res) => {
    seen.push(req.headers.authorization);
    res.setHeader("content-type", "application/json");
    if (req.url?.endsWith("/supported")) {
      res.end(
        JSON.stringify({
          kinds: kinds.map((kind) => ({ x402Version: 2, ...kind })),
          extensions: [],
          signers: {},
        }),
      );
    } else {
      res.statusCode = 404;
      res.end("{}");
    }
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return { server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, seen };
}

const hosted = (facilitatorUrl: string) =>
  loadFortuneConfig({
    FORTUNE_RAILS: "hosted",
    FORTUNE_FACILITATOR_URL: facilitatorUrl,
    FORTUNE_FACILITATOR_TOKEN: "facilitator-token-1",
    FORTUNE_X402_NETWORK: "eip155:8453",
    FORTUNE_X402_RPC_URL: "http://127.0.0.1:1/rpc",
    FORTUNE_X402_ASSET: `0x${"a1".repeat(20)}`,
    FORTUNE_X402_ASSET_NAME: "USD Coin",
    FORTUNE_X402_ASSET_VERSION: "2",
    FORTUNE_PAY_TO: `0x${"b2".repeat(20)}`,
    FORTUNE_MPP_RPC_URL: "http://127.0.0.1:1/tempo",
    FORTUNE_MPP_CURRENCY: `0x${"c3".repeat(20)}`,
    FORTUNE_MPP_OPERATOR_KEY: `0x${"d4".repeat(32)}`,
    FORTUNE_MPP_SECRET_KEY: "a-hosted-secret-of-at-least-thirty-two-chars",
  });

describe("hosted rails check the facilitator at start", () => {
  let server: Server | undefined;
  afterEach(() => server?.close());

  test("a facilitator without upto on the network: the service refuses to start, saying which scheme", async ({
    db,
  }) => {
    const fake = await facilitator([
      { scheme: "exact", network: "eip155:8453" },
      { scheme: "upto", network: "eip155:1" },
    ]);
    server = fake.server;
    await expect(startRails(hosted(fake.url), db, silentLogger())).rejects.toThrow(
      /does not support upto on eip155:8453/,
    );
    expect(fake.seen[0]).toBe("Bearer facilitator-token-1");
  });

  test("a facilitator with both schemes: the rails start", async ({ db }) => {
    const fake = await facilitator([
      { scheme: "exact", network: "eip155:8453" },
      { scheme: "upto", network: "eip155:8453" },
    ]);
    server = fake.server;
    const rails = await startRails(hosted(fake.url), db, silentLogger());
    expect(rails.x402.network).toBe("eip155:8453");
    await rails.stop();
  });

  test("an unreachable facilitator: the service refuses to start, and says so without the URL's path", async ({
    db,
  }) => {
    await expect(startRails(hosted("http://127.0.0.1:1/secret-path"), db, silentLogger())).rejects.toThrow(
      /^the x402 facilitator at http:\/\/127\.0\.0\.1:1\/… did not answer \/supported/,
    );
  });
});

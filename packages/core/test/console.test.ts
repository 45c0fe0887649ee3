import { captureLogs } from "@app/testkit";
import { afterEach, describe, expect, it } from "vitest";
import { errorSummary, routeConsoleTo } from "../src/index.ts";

const RPC_URL = "https://user:pass@rpc.example.com/v2/sk_rpc_key_123?apikey=sk_query_456";

/** An error shaped as viem's, as mppx prints it: the message's later lines hold the RPC URL and request body. */
function viemError(): Error {
  const error = new Error(
    `HTTP request failed.\n\nURL: ${RPC_URL}\nRequest body: {"method":"eth_sendRawTransaction","params":["0xsigned_tx_secret"]}`,
  );
  error.name = "HttpRequestError";
  return Object.assign(error, { shortMessage: "HTTP request failed." });
}

describe("what libraries print to console", () => {
  let restore: (() => void) | undefined;
  afterEach(() => restore?.());

  it("goes through the logger, summarised: no RPC URL, key or request body, and nothing on stderr", () => {
    const { logger, lines } = captureLogs("debug");
    restore = routeConsoleTo(logger);
    console.error("mppx: internal verification error", viemError());
    console.warn(`[mppx] could not reach ${RPC_URL}`);
    restore();
    restore = undefined;
    const all = lines.join("\n");
    expect(lines).toHaveLength(2);
    for (const secret of [
      "sk_rpc_key_123",
      "sk_query_456",
      "user:pass",
      "0xsigned_tx_secret",
      "Request body",
    ]) {
      expect(all).not.toContain(secret);
    }
    const first = JSON.parse(lines[0] ?? "{}");
    expect(first).toMatchObject({ console: "error", msg: "mppx: internal verification error" });
    expect(first.errors[0]).toMatchObject({ type: "HttpRequestError", message: "HTTP request failed." });
    expect(JSON.parse(lines[1] ?? "{}").msg).toBe("[mppx] could not reach https://rpc.example.com/…");
  });

  it("an error logged as `err` is summarised the same way", () => {
    const { logger, lines } = captureLogs("info");
    logger.warn({ err: viemError() }, "settlement failed");
    expect(lines.join("\n")).not.toContain("sk_rpc_key_123");
    expect(JSON.parse(lines[0] ?? "{}").err).toMatchObject({ message: "HTTP request failed." });
    expect(errorSummary("plain text with https://host.example/path/secret")).toEqual({
      message: "plain text with https://host.example/…",
    });
  });
});

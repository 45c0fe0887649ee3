import { captureLogs } from "@app/testkit";
import { describe, expect, it } from "vitest";
import { redactHeaders } from "../src/index.ts";
import { exampleApp } from "./helpers.ts";

const SECRETS: Record<string, string> = {
  authorization: "Bearer sk_live_secret_one",
  "x-api-key": "pk_secret_two",
  "x-upstream-key": "upstream_secret_three",
  "x-shop-key": "shop_secret_four",
  "payment-signature": "eyJzaWduYXR1cmUiOiJzZWNyZXRfZml2ZSJ9",
  "sign-in-with-x": "c2l3eF9zZWNyZXRfc2l4",
  cookie: "session=cookie_secret_seven",
  "x-refresh-token": "refresh_secret_eight",
};

describe("log redaction", () => {
  it("never writes a secret header value to a log line", async () => {
    const { logger, lines } = captureLogs("debug");
    const app = exampleApp(logger);
    await app.request("/healthz", { headers: { ...SECRETS, "user-agent": "agent/1.0" } });
    await app.request("/boom", { headers: SECRETS });
    expect(lines.length).toBeGreaterThanOrEqual(3);
    const all = lines.join("\n");
    for (const value of Object.values(SECRETS)) expect(all).not.toContain(value);
    const access = JSON.parse(lines[0] ?? "{}");
    expect(access.headers["user-agent"]).toBe("agent/1.0");
    expect(access.headers.authorization).toBe("[redacted]");
    expect(access.headers["payment-signature"]).toBe("[redacted]");
  });

  it("logs every request at debug, and at info only those that need attention", async () => {
    const quiet = captureLogs("info");
    const app = exampleApp(quiet.logger);
    await app.request("/healthz");
    expect(quiet.lines.filter((line) => line.includes('"msg":"request"'))).toEqual([]);
    await app.request("/boom");
    const failed = quiet.lines
      .filter((line) => line.includes('"msg":"request"'))
      .map((line) => JSON.parse(line));
    expect(failed).toMatchObject([{ level: 30, path: "/boom", status: 500 }]);

    const verbose = captureLogs("debug");
    await exampleApp(verbose.logger).request("/healthz");
    const lines = verbose.lines
      .filter((line) => line.includes('"msg":"request"'))
      .map((line) => JSON.parse(line));
    expect(lines).toMatchObject([{ level: 20, path: "/healthz", status: 200 }]);
  });

  it("redacts secret fields and any logged headers", () => {
    const { logger, lines } = captureLogs();
    logger.info(
      {
        privateKey: "0xdeadbeef",
        apiKey: "k_123",
        headers: { authorization: "Bearer t_456", accept: "*/*" },
      },
      "seeded",
    );
    expect(lines[0]).not.toContain("0xdeadbeef");
    expect(lines[0]).not.toContain("k_123");
    expect(lines[0]).not.toContain("t_456");
    expect(JSON.parse(lines[0] ?? "{}").headers.accept).toBe("*/*");
  });

  it("keeps ordinary headers as they are", () => {
    expect(redactHeaders({ accept: "application/json", "X-Api-Key": "abc" })).toEqual({
      accept: "application/json",
      "X-Api-Key": "[redacted]",
    });
  });
});

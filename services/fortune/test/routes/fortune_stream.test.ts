import { createServiceApp, systemClock } from "@app/core";
import type { MppRail } from "@app/payments";
import { silentLogger } from "@app/testkit";
import { describe, expect, it } from "vitest";
import type { SessionBilling } from "../../src/payments/session-billing.ts";
import { registerFortuneStream } from "../../src/routes/fortune_stream.ts";
import type { RouteDeps } from "../../src/routes/shared.ts";
import type { FortuneWriter } from "../../src/text/generator.ts";

/** A writer that counts how often the text model is asked. */
function countingWriter() {
  const writer = {
    calls: 0,
    async fortune() {
      return "a fortune";
    },
    async reply(_prompt: string, maxTokens: number) {
      writer.calls += 1;
      return ["one", "two"].slice(0, maxTokens);
    },
  };
  return writer;
}

function streamApp(writer: FortuneWriter, mpp: Partial<MppRail>) {
  const app = createServiceApp({
    name: "t",
    title: "T",
    version: "1",
    logger: silentLogger(),
    checkReady: async () => undefined,
  });
  const deps = {
    mpp: mpp as MppRail,
    writer,
    clock: systemClock,
    mppCurrency: "0x20c0000000000000000000000000000000000000",
    mppMethod: "tempo",
    sessionBilling: { billStream: async () => undefined } as unknown as SessionBilling,
  } as unknown as RouteDeps & { sessionBilling: SessionBilling };
  registerFortuneStream(app, deps);
  return app;
}

describe("POST /api/fortune/stream", () => {
  describe("security", () => {
    it("an unpaid request gets its 402 without the text model being asked", async () => {
      const writer = countingWriter();
      const challenge = new Response(JSON.stringify({ type: "payment-required" }), { status: 402 });
      const app = streamApp(writer, {
        stream: async () => ({ status: 402, challenge, wwwAuthenticate: "Payment" }),
      });
      const res = await app.request("/api/fortune/stream", {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ prompt: "hello" }),
      });
      expect(res.status).toBe(402);
      expect(writer.calls).toBe(0);
    });
  });
});

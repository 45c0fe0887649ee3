import { ConfigError } from "@app/core";
import { describe, expect, test } from "vitest";
import { loadShopConfig } from "../src/config.ts";

describe("the shop service's configuration", () => {
  test("limits default to 120 reads a minute and 30 bookings in ten minutes per key", () => {
    expect(loadShopConfig({}).limits).toEqual({
      read: { limit: 120, windowSeconds: 60 },
      booking: { limit: 30, windowSeconds: 600 },
    });
    expect(loadShopConfig({}).port).toBe(3004);
  });

  test("SHOP_ variables set the limits", () => {
    const config = loadShopConfig({
      SHOP_READ_LIMIT: "10",
      SHOP_READ_WINDOW_SECONDS: "1",
      SHOP_BOOKING_LIMIT: "5",
      SHOP_BOOKING_WINDOW_SECONDS: "3600",
    });
    expect(config.limits).toEqual({
      read: { limit: 10, windowSeconds: 1 },
      booking: { limit: 5, windowSeconds: 3600 },
    });
  });

  test("a limit of zero or a misspelt SHOP_ variable stops the start", () => {
    expect(() => loadShopConfig({ SHOP_READ_LIMIT: "0" })).toThrow(ConfigError);
    expect(() => loadShopConfig({ SHOP_READ_LIMITS: "10" })).toThrow(/SHOP_READ_LIMITS: unknown setting/);
  });
});

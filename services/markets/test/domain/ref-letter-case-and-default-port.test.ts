import { describe, expect, it } from "vitest";
import { classifyRef } from "../../src/domain/ref.ts";

/**
 * What the README promises a ref may be, in every spelling a user may paste: a condition id in
 * any letter case (its `0x` prefix too), a site URL's path sections in any case, and a URL that
 * spells out its scheme's default port. Anything else stays malformed.
 */
const HEX = "ab12".repeat(16);
const CONDITION = `0x${HEX}`;

describe("condition ids in any letter case", () => {
  it("reads an upper-case 0X prefix and upper-case hex as the lower-case id", () => {
    for (const ref of [`0X${HEX}`, `0X${HEX.toUpperCase()}`, `0x${HEX.toUpperCase()}`, CONDITION]) {
      expect(classifyRef(ref), ref).toEqual({ kind: "condition_id", conditionId: CONDITION });
    }
  });

  it("still refuses a 0X that is not followed by exactly 64 hex digits", () => {
    for (const ref of [`0X${HEX.slice(1)}`, `0X${HEX}0`, `0X${"g".repeat(64)}`, "0X"]) {
      expect(classifyRef(ref).kind, ref).toBe("malformed");
    }
  });
});

describe("site URLs: section names in any case", () => {
  it("reads /EVENT/, /Event/, /MARKET/ and an upper-case locale as their lower-case selves", () => {
    expect(classifyRef("https://polymarket.com/EVENT/fed-decision")).toEqual({
      kind: "event_url",
      eventSlug: "fed-decision",
    });
    expect(classifyRef("https://polymarket.com/Event/Fed-Decision/Will-Rates-Fall")).toEqual({
      kind: "event_url",
      eventSlug: "fed-decision",
      marketSlug: "will-rates-fall",
    });
    expect(classifyRef("https://polymarket.com/MARKET/will-rates-fall")).toEqual({
      kind: "market_url",
      marketSlug: "will-rates-fall",
    });
    expect(classifyRef("https://polymarket.com/ES/EVENT/fed-decision")).toEqual({
      kind: "event_url",
      eventSlug: "fed-decision",
    });
  });

  it("still refuses other sections", () => {
    for (const ref of ["https://polymarket.com/EVENTS/x", "https://polymarket.com/PROFILE/x"]) {
      expect(classifyRef(ref).kind, ref).toBe("malformed");
    }
  });
});

describe("site URLs: an explicit default port", () => {
  it("accepts :443 on https and :80 on http, as the URL without it", () => {
    for (const ref of [
      "https://polymarket.com:443/event/fed-decision",
      "https://www.polymarket.com:443/event/fed-decision?tid=1",
      "HTTPS://POLYMARKET.COM:443/EVENT/fed-decision",
      "http://polymarket.com:80/event/fed-decision/",
    ]) {
      expect(classifyRef(ref), ref).toEqual({ kind: "event_url", eventSlug: "fed-decision" });
    }
    expect(classifyRef("https://polymarket.com:443")).toEqual(classifyRef("https://polymarket.com"));
  });

  it("refuses any other port, a port without a scheme, and another scheme's default", () => {
    for (const ref of [
      "http://polymarket.com:443/event/fed-decision",
      "https://polymarket.com:80/event/fed-decision",
      "https://polymarket.com:8443/event/fed-decision",
      "https://polymarket.com:0443/event/fed-decision",
      "https://polymarket.com:/event/fed-decision",
      "polymarket.com:443/event/fed-decision",
      "https://polymarket.com:443evil.example/event/fed-decision",
    ]) {
      expect(classifyRef(ref).kind, ref).toBe("malformed");
    }
  });
});

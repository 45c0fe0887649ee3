import { describe, expect, it } from "vitest";
import { classifyRef, type RefIndex, resolveRef } from "../../src/domain/ref.ts";

const CONDITION = `0x${"ab12".repeat(16)}`;
const TOKEN = "71321045679252212594626385532706912750332728571942532289631379312455583992563";

/** A tiny index where keys collide on purpose, to pin the precedence rules. */
const index: RefIndex = {
  eventBySlug: new Map([
    ["fed-decision", "E1"],
    ["shared-slug", "E1"],
    ["only-event", "E3"],
  ]),
  eventById: new Map([
    ["100", "E1"],
    ["200", "E2"],
  ]),
  marketSlugToEvent: new Map([
    ["shared-slug", "E2"],
    ["will-rates-fall", "E2"],
  ]),
  marketIdToEvent: new Map([
    ["100", "E2"],
    ["555", "E3"],
  ]),
  conditionIdToEvent: new Map([[CONDITION, "E2"]]),
  tokenIdToEvent: new Map([[TOKEN, "E3"]]),
};

const found = (eventId: string, matchedBy: string) => ({ kind: "found", eventId, matchedBy });

describe("ref kinds", () => {
  it("resolves an event URL by its event slug", () => {
    expect(resolveRef("https://polymarket.com/event/fed-decision", index)).toEqual(found("E1", "event_slug"));
  });

  it("resolves an event URL with a market segment to the event of the event slug", () => {
    expect(resolveRef("https://polymarket.com/event/fed-decision/will-rates-fall", index)).toEqual(
      found("E1", "event_slug"),
    );
  });

  it("falls back to the market slug of an event URL when the event slug is unknown", () => {
    expect(resolveRef("https://polymarket.com/event/gone/will-rates-fall", index)).toEqual(
      found("E2", "market_slug"),
    );
  });

  it("resolves a market URL by its market slug", () => {
    expect(resolveRef("https://polymarket.com/market/will-rates-fall", index)).toEqual(
      found("E2", "market_slug"),
    );
  });

  it("resolves a market URL naming an event slug to that event", () => {
    expect(resolveRef("https://polymarket.com/market/only-event", index)).toEqual(found("E3", "event_slug"));
  });

  it("accepts www, http, no scheme, a locale segment, a trailing slash, a query and a fragment", () => {
    for (const ref of [
      "https://www.polymarket.com/event/fed-decision",
      "http://polymarket.com/event/fed-decision/",
      "polymarket.com/event/fed-decision",
      "https://polymarket.com/es/event/fed-decision",
      "https://polymarket.com/event/fed-decision?tid=123&via=x#comments",
      "HTTPS://POLYMARKET.COM/event/Fed-Decision",
    ]) {
      expect(resolveRef(ref, index), ref).toEqual(found("E1", "event_slug"));
    }
  });

  it("resolves a condition id in any letter case", () => {
    expect(resolveRef(CONDITION.toUpperCase().replace("0X", "0x"), index)).toEqual(
      found("E2", "condition_id"),
    );
  });

  it("resolves a token id", () => {
    expect(resolveRef(TOKEN, index)).toEqual(found("E3", "token_id"));
  });

  it("resolves a numeric id as an event id, then as a market id", () => {
    expect(resolveRef("200", index)).toEqual(found("E2", "event_id"));
    expect(resolveRef("555", index)).toEqual(found("E3", "market_id"));
  });

  it("resolves a bare slug as an event slug, then as a market slug", () => {
    expect(resolveRef("only-event", index)).toEqual(found("E3", "event_slug"));
    expect(resolveRef("will-rates-fall", index)).toEqual(found("E2", "market_slug"));
  });

  it("ignores surrounding spaces", () => {
    expect(resolveRef("  fed-decision  ", index)).toEqual(found("E1", "event_slug"));
  });
});

describe("precedence", () => {
  it("prefers the event when a number is both an event id and a market id", () => {
    expect(resolveRef("100", index)).toEqual(found("E1", "event_id"));
  });

  it("prefers the event when a slug is both an event slug and a market slug", () => {
    expect(resolveRef("shared-slug", index)).toEqual(found("E1", "event_slug"));
  });

  it("prefers the market when a /market/ URL names both a market slug and an event slug", () => {
    expect(resolveRef("https://polymarket.com/market/shared-slug", index)).toEqual(
      found("E2", "market_slug"),
    );
  });

  it("reads 20 digits or more as a token id, never as a numeric id", () => {
    expect(classifyRef("12345678901234567890")).toEqual({
      kind: "token_id",
      tokenId: "12345678901234567890",
    });
    expect(classifyRef("1234567890123456789")).toEqual({ kind: "numeric_id", id: "1234567890123456789" });
  });
});

describe("not found and malformed", () => {
  it("answers not found for well-formed refs that match nothing", () => {
    for (const ref of [
      "999",
      "no-such-event",
      `0x${"0".repeat(64)}`,
      "9".repeat(77),
      "https://polymarket.com/event/nope",
    ]) {
      expect(resolveRef(ref, index), ref).toEqual({ kind: "not_found" });
    }
  });

  it("refuses malformed refs with a reason", () => {
    for (const ref of [
      "",
      "0x1234",
      `0x${"g".repeat(64)}`,
      "https://example.com/event/fed-decision",
      "https://polymarket.com/",
      "https://polymarket.com/profile/someone",
      "https://polymarket.com/event/",
      "https://polymarket.com/event/a/b/c",
      "https://polymarket.com/market/a/b",
      "fed decision",
      "fed_decision",
      "../etc/passwd",
      "'; DROP TABLE markets.accounts; --",
      "-leading-dash",
    ]) {
      const result = resolveRef(ref, index);
      expect(result.kind, ref).toBe("malformed");
    }
  });
});

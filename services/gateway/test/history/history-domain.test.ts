import { readFile } from "node:fs/promises";
import { describe, expect, it } from "vitest";
import {
  decodeLedgerCursor,
  decodeRunCursor,
  encodeLedgerCursor,
  encodeRunCursor,
} from "../../src/domain/page-cursor.ts";
import {
  isErrorStatus,
  RUN_STATUS_NAMES,
  RUN_STATUSES,
  runStatusOf,
  statusFilter,
} from "../../src/domain/run-status.ts";
import { parseInstant, usageRange } from "../../src/domain/usage-range.ts";

describe("run statuses", () => {
  it("map every outcome, and an upstream's answer by its status", () => {
    expect(runStatusOf("running", null)).toBe("running");
    expect(runStatusOf("completed", 200)).toBe("succeeded");
    expect(runStatusOf("completed", 304)).toBe("succeeded");
    expect(runStatusOf("completed", 400)).toBe("upstream_error");
    expect(runStatusOf("completed", 503)).toBe("upstream_error");
    expect(runStatusOf("completed", null)).toBe("upstream_error");
    expect(runStatusOf("failed", 200)).toBe("failed");
    expect(runStatusOf("upstream_unavailable", null)).toBe("upstream_unavailable");
    expect(runStatusOf("upstream_timeout", null)).toBe("upstream_timeout");
    expect(runStatusOf("upstream_response_too_large", null)).toBe("upstream_response_too_large");
  });

  it("filter by what they map from, each status its own", () => {
    for (const name of RUN_STATUS_NAMES) {
      const filter = statusFilter(name);
      const upstreamStatus = filter.upstreamOk === false ? 500 : filter.outcome === "completed" ? 200 : null;
      expect(runStatusOf(filter.outcome, upstreamStatus)).toBe(name);
    }
    expect(RUN_STATUS_NAMES.filter(isErrorStatus)).toEqual([
      "upstream_error",
      "upstream_unavailable",
      "upstream_timeout",
      "upstream_response_too_large",
      "failed",
    ]);
  });

  it("are the README's table, row for row", async () => {
    const readme = await readFile(new URL("../../README.md", import.meta.url), "utf8");
    const rows = RUN_STATUS_NAMES.map((name) => {
      const { outcome, upstreamOk } = statusFilter(name);
      const side =
        upstreamOk === undefined ? "" : upstreamOk ? ", upstream below 400" : ", upstream 400 or above";
      return `| \`${name}\` | \`${outcome}\`${side} | ${RUN_STATUSES[name].meaning} |`;
    });
    const table = ["| Status | Recorded outcome | Meaning |", "|---|---|---|", ...rows].join("\n");
    expect(readme.includes(table), `README.md should contain:\n\n${table}\n`).toBe(true);
  });
});

describe("page cursors", () => {
  it("name where a page ended, and only for their own list", () => {
    const runs = encodeRunCursor({ createdMicros: 1_767_225_600_123_456n, id: "run_abc-_9" });
    expect(runs).toMatch(/^[A-Za-z0-9_-]+$/);
    expect(decodeRunCursor(runs)).toEqual({ createdMicros: 1_767_225_600_123_456n, id: "run_abc-_9" });
    const ledger = encodeLedgerCursor({ id: 9_223_372_036_854_775_807n });
    expect(decodeLedgerCursor(ledger)).toEqual({ id: 9_223_372_036_854_775_807n });
    expect(decodeRunCursor(ledger)).toBeUndefined();
    expect(decodeLedgerCursor(runs)).toBeUndefined();
  });

  it("refuse what this service did not issue", () => {
    const forged = (value: unknown) => Buffer.from(JSON.stringify(value)).toString("base64url");
    for (const cursor of [
      "",
      "!!",
      "a".repeat(600),
      forged(["runs", 1, "run_x"]),
      forged(["runs", "-1", "run_x"]),
      forged(["runs", "1", "run x"]),
      forged(["runs", "1", "run_x", "extra"]),
      forged({ runs: 1 }),
      Buffer.from("not json").toString("base64url"),
    ]) {
      expect(decodeRunCursor(cursor), cursor).toBeUndefined();
    }
    expect(decodeLedgerCursor(forged(["ledger", "9223372036854775808"]))).toBeUndefined();
    // A run position past any real timestamp (the database's arithmetic would overflow).
    expect(decodeRunCursor(forged(["runs", "9223372036854775807", "run_x"]))).toBeUndefined();
    expect(decodeRunCursor(forged(["runs", "253402300800000000", "run_x"]))).toBeUndefined();
    expect(decodeRunCursor(forged(["runs", "253402300799999999", "run_x"]))).toEqual({
      createdMicros: 253_402_300_799_999_999n,
      id: "run_x",
    });
    expect(decodeLedgerCursor(forged(["ledger", "1.5"]))).toBeUndefined();
  });
});

describe("usage periods", () => {
  const now = new Date("2026-05-17T10:30:00Z");

  it("default to the current UTC month", () => {
    expect(usageRange({}, now)).toEqual({
      ok: true,
      range: { from: new Date("2026-05-01T00:00:00Z"), to: new Date("2026-06-01T00:00:00Z") },
    });
    expect(usageRange({}, new Date("2026-12-31T23:59:59.999Z"))).toEqual({
      ok: true,
      range: { from: new Date("2026-12-01T00:00:00Z"), to: new Date("2027-01-01T00:00:00Z") },
    });
  });

  it("read dates as UTC days (a `to` date is the end of its day) and date-times in their zone", () => {
    expect(parseInstant("2026-05-01", false)).toBe(Date.parse("2026-05-01T00:00:00Z"));
    expect(parseInstant("2026-05-01", true)).toBe(Date.parse("2026-05-02T00:00:00Z"));
    expect(parseInstant("2026-05-01T12:00Z", false)).toBe(Date.parse("2026-05-01T12:00:00Z"));
    expect(parseInstant("2026-05-01T12:00:00.1234+02:00", false)).toBe(
      Date.parse("2026-05-01T10:00:00.123Z"),
    );
    expect(parseInstant("2026-05-01T01:00:00-05:30", true)).toBe(Date.parse("2026-05-01T06:30:00Z"));
    expect(parseInstant("2024-02-29", false)).toBe(Date.parse("2024-02-29T00:00:00Z"));
    expect(parseInstant("0099-01-01", false)).toBe(Date.parse("0099-01-01T00:00:00Z"));
    for (const text of [
      "2026-02-29",
      "2026-13-01",
      "2026-05-01T24:00Z",
      "2026-05-01T10:00",
      "2026-5-1",
      "1e12",
      "",
    ]) {
      expect(parseInstant(text, false), text).toBeUndefined();
    }
  });

  it("refuse a reversed, empty or over-long period, naming the parameter", () => {
    expect(usageRange({ from: "2026-05-02", to: "2026-05-01" }, now)).toMatchObject({
      ok: false,
      path: "to",
    });
    expect(usageRange({ from: "2026-05-01T00:00Z", to: "2026-05-01T00:00Z" }, now)).toMatchObject({
      ok: false,
    });
    expect(usageRange({ from: "2024-01-01", to: "2024-12-31" }, now)).toMatchObject({ ok: true });
    expect(usageRange({ from: "2024-01-01", to: "2025-01-01" }, now)).toMatchObject({
      ok: false,
      path: "to",
    });
    expect(usageRange({ from: "someday" }, now)).toMatchObject({ ok: false, path: "from" });
    expect(usageRange({ from: "2026-05-10" }, now)).toEqual({
      ok: true,
      range: { from: new Date("2026-05-10T00:00:00Z"), to: new Date("2026-06-01T00:00:00Z") },
    });
  });

  it("lie in the years 0001 to 9999: beyond them refused, naming the parameter", () => {
    expect(usageRange({ from: "0000-01-01", to: "0000-12-31" }, now)).toMatchObject({
      ok: false,
      path: "from",
    });
    expect(usageRange({ from: "0001-01-01T00:30:00+01:00", to: "0001-01-02" }, now)).toMatchObject({
      ok: false,
      path: "from",
    });
    // A `to` date is the end of its day: 9999-12-31 ends in year 10000.
    expect(usageRange({ from: "9999-12-30", to: "9999-12-31" }, now)).toMatchObject({
      ok: false,
      path: "to",
    });
    expect(usageRange({ from: "9999-12-31", to: "9999-12-31T23:00:00-02:00" }, now)).toMatchObject({
      ok: false,
      path: "to",
    });
    expect(usageRange({ from: "0001-01-01", to: "0001-01-02" }, now)).toEqual({
      ok: true,
      range: { from: new Date("0001-01-01T00:00:00Z"), to: new Date("0001-01-03T00:00:00Z") },
    });
    expect(usageRange({ from: "9999-12-30", to: "9999-12-31T23:59:59.999Z" }, now)).toEqual({
      ok: true,
      range: { from: new Date("9999-12-30T00:00:00Z"), to: new Date("9999-12-31T23:59:59.999Z") },
    });
  });
});

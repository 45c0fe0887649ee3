import { describe, expect, it } from "vitest";
import { createTextSealer } from "../src/index.ts";

const SECRET = "a-configured-secret-of-at-least-32-characters";

describe("text sealer", () => {
  it("round-trips text and hides it", () => {
    const sealer = createTextSealer(SECRET, "store");
    const sealed = sealer.seal('{"signature":"0xabc"}', "row-1");
    expect(sealed).toMatch(/^v1\./);
    expect(sealed).not.toContain("0xabc");
    expect(sealer.open(sealed, "row-1")).toBe('{"signature":"0xabc"}');
    expect(sealer.seal("same", "row-1")).not.toBe(sealer.seal("same", "row-1"));
  });

  it("refuses a tampered value, another row's context, another purpose or secret", () => {
    const sealer = createTextSealer(SECRET, "store");
    const sealed = sealer.seal("voucher", "row-1");
    const tampered = `${sealed.slice(0, -2)}${sealed.endsWith("A") ? "B" : "A"}A`;
    expect(() => sealer.open(tampered, "row-1")).toThrow();
    expect(() => sealer.open(sealed, "row-2")).toThrow();
    expect(() => createTextSealer(SECRET, "other").open(sealed, "row-1")).toThrow();
    expect(() => createTextSealer(`${SECRET}!`, "store").open(sealed, "row-1")).toThrow();
    expect(() => sealer.open("plain text")).toThrow("Not a sealed value.");
    expect(() => createTextSealer("short", "store")).toThrow();
  });
});

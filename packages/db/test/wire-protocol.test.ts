import { describe, expect, it } from "vitest";
import {
  nextBatch,
  nextMessage,
  ProtocolViolation,
  queryMessage,
  ReadyForQueryTail,
  SYNC_MESSAGE,
} from "../src/embedded/wire-protocol.ts";

const typed = (type: string, body = "") => {
  const bytes = Buffer.from(body);
  const header = Buffer.alloc(5);
  header.write(type, 0, "latin1");
  header.writeInt32BE(bytes.length + 4, 1);
  return Buffer.concat([header, bytes]);
};

describe("the wire protocol's framing", () => {
  it("waits for a whole message, however the bytes are split", () => {
    const message = queryMessage("SELECT 1");
    for (let cut = 0; cut < message.length; cut++)
      expect(nextMessage(message.subarray(0, cut), true)).toBeUndefined();
    expect(nextMessage(message, true)?.message.type).toBe("Q");
  });

  it("reads an untyped startup message before the startup, and refuses an impossible length", () => {
    const startup = Buffer.from([0, 0, 0, 8, 0, 3, 0, 0]);
    expect(nextMessage(startup, false)?.message).toEqual({ type: "", bytes: startup });
    expect(() => nextMessage(Buffer.from([0, 0, 0, 2, 0, 0]), false)).toThrow(ProtocolViolation);
    expect(() => nextMessage(Buffer.from([0x51, 0xff, 0xff, 0xff, 0xff]), true)).toThrow(ProtocolViolation);
  });

  it("runs an extended-protocol cycle as one batch, up to its Sync, and a Terminate alone", () => {
    const cycle = Buffer.concat([typed("P", "x"), typed("B", "y"), typed("E", "z"), SYNC_MESSAGE]);
    const next = queryMessage("SELECT 2");
    const batch = nextBatch(Buffer.concat([cycle, next, typed("X")]), true);
    expect(batch?.message.type).toBe("S");
    expect(batch?.message.bytes).toEqual(cycle);
    const query = nextBatch(batch?.rest as Buffer, true);
    expect(query?.message.type).toBe("Q");
    expect(nextBatch(query?.rest as Buffer, true)?.message.type).toBe("X");
    expect(nextBatch(Buffer.concat([typed("P", "x"), typed("X")]), true)?.message.type).toBe("P");
    const unsynced = nextBatch(
      Buffer.concat([typed("P", "x"), typed("B", "y"), typed("S").subarray(0, 3)]),
      true,
    );
    expect(unsynced?.message.type).toBe("B");
  });

  it("reads the status of the ReadyForQuery an output ended with, across chunks", () => {
    const tail = new ReadyForQueryTail();
    tail.push(Buffer.from("C\0\0\0\x0dSELECT 1\0Z\0"));
    expect(tail.status()).toBeUndefined();
    tail.push(Buffer.from("\0\0\x05T"));
    expect(tail.status()).toBe("T");
    tail.reset();
    tail.push(Buffer.from("1\0\0\0\x04"));
    expect(tail.status()).toBeUndefined();
  });
});

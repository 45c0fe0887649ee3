import { createHash, type Hash } from "node:crypto";
import { Writable } from "node:stream";

/**
 * The SHA-256 and length of media received in one or more pieces. Bytes are hashed as they
 * stream in and then dropped: the sandbox never holds a whole upload in memory or on disk.
 */
export class MediaDigest {
  private hash: Hash = createHash("sha256");
  private received = 0;
  private saved: { hash: Hash; received: number } | undefined;
  private digest: string | undefined;

  get bytes(): number {
    return this.received;
  }

  /** Counts and hashes the next bytes. */
  append(chunk: Buffer): void {
    this.hash.update(chunk);
    this.received += chunk.length;
  }

  /** A sink for the next piece; every byte written to it counts, even when the piece breaks off. */
  sink(): Writable {
    return new Writable({
      write: (chunk: Buffer, _encoding, callback) => {
        this.append(chunk);
        callback();
      },
    });
  }

  /** Remembers the state before a piece that must arrive whole or not at all. */
  checkpoint(): void {
    this.saved = { hash: this.hash.copy(), received: this.received };
  }

  /** Forgets the bytes received since {@link checkpoint} (the piece broke off). */
  rollback(): void {
    if (!this.saved) return;
    this.hash = this.saved.hash;
    this.received = this.saved.received;
    this.saved = undefined;
  }

  /** The hex SHA-256 of everything received; no more bytes may follow. */
  finish(): string {
    this.digest ??= this.hash.digest("hex");
    return this.digest;
  }
}

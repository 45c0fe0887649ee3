import { isStorableText } from "./text.ts";

/** Where a page of posts ends: the last post's creation time (epoch microseconds) and id. */
export type PostCursor = { createdMicros: number; id: string };

/** An opaque cursor for the page after `position`. */
export function encodeCursor(position: PostCursor): string {
  return Buffer.from(JSON.stringify([position.createdMicros, position.id]), "utf8").toString("base64url");
}

/** The position a cursor names, or undefined when it is not one this service issued. */
export function decodeCursor(cursor: string): PostCursor | undefined {
  if (!/^[A-Za-z0-9_-]{1,512}$/.test(cursor)) return undefined;
  try {
    const value: unknown = JSON.parse(Buffer.from(cursor, "base64url").toString("utf8"));
    if (!Array.isArray(value) || value.length !== 2) return undefined;
    const [createdMicros, id] = value;
    if (!Number.isSafeInteger(createdMicros) || createdMicros < 0) return undefined;
    if (typeof id !== "string" || id.length === 0 || id.length > 128 || !isStorableText(id)) return undefined;
    return { createdMicros, id };
  } catch {
    return undefined;
  }
}

import { randomInt } from "node:crypto";
import { TID } from "@atproto/common-web";

/**
 * A timestamp identifier (TID), the record key type of `app.bsky.feed.post`: microseconds since
 * 1970 and a random clock id, in sortable base32 (atproto's own `TID`). Chosen before
 * `createRecord`, it is the post's exactly-once handle.
 */
export function newTid(now: Date): string {
  return TID.fromTime(now.getTime() * 1000 + randomInt(1000), randomInt(1024)).toString();
}

export { isValidTid as isTid } from "@atproto/syntax";

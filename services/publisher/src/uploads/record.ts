import { newId } from "@app/core";

/** A new media id and its storage path with `extension` (`med_3kTq….mp4`). */
export function newMediaPath(extension: string): { id: string; path: string } {
  const id = newId("med");
  return { id, path: `${id}.${extension}` };
}

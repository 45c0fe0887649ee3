import type { TextSealer } from "@app/core";

/**
 * Handle fields that are bearer credentials: whoever has a YouTube resumable session URI or a
 * TikTok `upload_url` can send bytes to that upload. They are sealed at rest with the tokens'
 * sealer, bound to the target (a value copied to another row does not open).
 */
const SEALED_FIELDS = ["sessionUri", "uploadUrl"] as const;

const contextOf = (targetId: string) => `target-handle:${targetId}`;

/** The handle as stored: its credential fields sealed. */
export function sealHandle(
  sealer: TextSealer,
  targetId: string,
  handle: Record<string, unknown>,
): Record<string, unknown> {
  const sealed = { ...handle };
  for (const field of SEALED_FIELDS) {
    const value = sealed[field];
    if (typeof value === "string") sealed[field] = sealer.seal(value, contextOf(targetId));
  }
  return sealed;
}

/** The handle as read back, its credential fields opened (a plain URL saved before sealing is kept). */
export function openHandle(
  sealer: TextSealer,
  targetId: string,
  handle: Record<string, unknown> | null,
): Record<string, unknown> | null {
  if (!handle) return handle;
  const opened = { ...handle };
  for (const field of SEALED_FIELDS) {
    const value = opened[field];
    if (typeof value === "string" && !/^https?:/i.test(value))
      opened[field] = sealer.open(value, contextOf(targetId));
  }
  return opened;
}

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

/**
 * Handle fields the history may show (`handle_saved` steps): TikTok's phase and publish id, the
 * chunk plan, Bluesky's record key and repo. Any other field (the upload URLs above, and whatever a
 * publisher adds later) is named under `kept`, its value never shown.
 */
const SHOWN_FIELDS = new Set([
  "phase",
  "kind",
  "publishId",
  "plan",
  "processingSince",
  "rkey",
  "repo",
  "createdAt",
]);

/** What the history shows of a saved handle: `{cleared: true}` for an emptied one. */
export function describeHandle(handle: Record<string, unknown>): Record<string, unknown> {
  const names = Object.keys(handle);
  if (names.length === 0) return { cleared: true };
  const shown: Record<string, unknown> = {};
  const kept: string[] = [];
  for (const name of names) {
    if (SHOWN_FIELDS.has(name)) shown[name] = handle[name];
    else kept.push(name);
  }
  return kept.length > 0 ? { ...shown, kept } : shown;
}

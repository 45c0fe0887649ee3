const MB = 1024 * 1024;
export const MIN_CHUNK = 5 * MB;
export const MAX_CHUNK = 64 * MB;
export const MAX_LAST_CHUNK = 128 * MB;
export const MAX_CHUNKS = 1000;

/** The chunks a FILE_UPLOAD declared, checked. */
export type ChunkPlan = { videoSize: number; chunkSize: number; totalChunkCount: number };

/**
 * Checks `video_size`, `chunk_size` and `total_chunk_count` as TikTok's media transfer guide
 * states: the count is video_size / chunk_size rounded down; chunks are 5–64 MB, except that a
 * file under 5 MB is one chunk of its whole size; the last chunk takes the trailing bytes (up to
 * 128 MB); a file over 64 MB needs several chunks; 1 to 1000 chunks. Returns the refusal's
 * message, or the plan.
 */
export function checkChunkPlan(source: Record<string, unknown>): ChunkPlan | string {
  const { video_size: videoSize, chunk_size: chunkSize, total_chunk_count: count } = source;
  for (const [name, value] of Object.entries({
    video_size: videoSize,
    chunk_size: chunkSize,
    total_chunk_count: count,
  })) {
    if (typeof value !== "number" || !Number.isSafeInteger(value) || value < 1) {
      return `source_info.${name} must be a positive integer.`;
    }
  }
  const plan = { videoSize, chunkSize, totalChunkCount: count } as ChunkPlan;
  if (plan.chunkSize > plan.videoSize) return "chunk_size must not exceed video_size.";
  if (plan.videoSize < MIN_CHUNK) {
    if (plan.chunkSize !== plan.videoSize || plan.totalChunkCount !== 1) {
      return "A video under 5 MB is uploaded whole: chunk_size must equal video_size and total_chunk_count must be 1.";
    }
    return plan;
  }
  if (plan.chunkSize < MIN_CHUNK || plan.chunkSize > MAX_CHUNK)
    return "chunk_size must be between 5 MB and 64 MB.";
  const expected = Math.floor(plan.videoSize / plan.chunkSize);
  if (plan.totalChunkCount !== expected) {
    return `total_chunk_count must be video_size / chunk_size rounded down (${expected}).`;
  }
  if (expected > MAX_CHUNKS) return "A video is uploaded in at most 1000 chunks.";
  if (plan.videoSize > MAX_CHUNK && expected < 2)
    return "A video over 64 MB must be uploaded in several chunks.";
  if (lastChunkSize(plan) > MAX_LAST_CHUNK) return "The last chunk may hold at most 128 MB.";
  return plan;
}

/** The size of the last chunk: the chunk size plus the trailing bytes. */
export function lastChunkSize(plan: ChunkPlan): number {
  return plan.videoSize - plan.chunkSize * (plan.totalChunkCount - 1);
}

/** The byte range chunk `index` (0-based) must cover. */
export function chunkRange(plan: ChunkPlan, index: number): { first: number; last: number } {
  const first = index * plan.chunkSize;
  const last = index === plan.totalChunkCount - 1 ? plan.videoSize - 1 : first + plan.chunkSize - 1;
  return { first, last };
}

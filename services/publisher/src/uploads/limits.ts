/** The largest upload, v1 and v2: 512 MiB (the spec's "512 MB", read generously as binary megabytes). */
export const MAX_UPLOAD_BYTES = 512 * 1024 * 1024;

/** Where v1 callers sending a JSON presign request are sent instead. */
export const UPLOAD_V2_PATH = "/api/v2/upload";

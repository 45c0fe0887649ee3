import { randomBytes } from "node:crypto";
import type { StorageConfig } from "../config.ts";
import type { MediaStorage } from "../contracts/storage.ts";
import { LocalDiskStorage } from "./local-disk.ts";
import { S3Storage } from "./s3.ts";

export { IncompleteBodyError, ObjectMissingError } from "./errors.ts";
export { EMBEDDED_BUCKET, LocalDiskStorage } from "./local-disk.ts";
export { S3Storage } from "./s3.ts";

/** The access key id of the embedded store's presigned URLs (the secret signs them). */
export const EMBEDDED_ACCESS_KEY_ID = "publisher-local";

/** The storage the configuration names; `publicBaseUrl` is this service's base URL, asked at each use. */
export function createStorage(config: StorageConfig, publicBaseUrl: () => string): MediaStorage {
  if (config.kind === "local") {
    return new LocalDiskStorage({
      dir: config.dir,
      publicBaseUrl,
      credentials: {
        accessKeyId: EMBEDDED_ACCESS_KEY_ID,
        secretAccessKey: config.secret ?? randomBytes(32).toString("base64url"),
        region: "us-east-1",
      },
    });
  }
  return new S3Storage({
    endpoint: config.endpoint,
    region: config.region,
    bucket: config.bucket,
    forcePathStyle: config.forcePathStyle,
    credentials: { accessKeyId: config.accessKeyId, secretAccessKey: config.secretAccessKey },
    publicUrl: config.publicUrl,
    publicBaseUrl,
  });
}

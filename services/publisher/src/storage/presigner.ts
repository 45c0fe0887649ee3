import { PutObjectCommand, S3Client } from "@aws-sdk/client-s3";
import { getSignedUrl } from "@aws-sdk/s3-request-presigner";

export type PresignTarget = {
  /** The S3 endpoint (path style); for the embedded store, this service's `/storage`. */
  endpoint?: string;
  region: string;
  bucket: string;
  forcePathStyle: boolean;
  credentials: { accessKeyId: string; secretAccessKey: string };
};

/** An S3 client for presigning and calls: no checksum of an empty body signed into URLs (research §4.2). */
export function s3Client(target: PresignTarget): S3Client {
  return new S3Client({
    region: target.region,
    endpoint: target.endpoint,
    forcePathStyle: target.forcePathStyle,
    credentials: target.credentials,
    requestChecksumCalculation: "WHEN_REQUIRED",
  });
}

/**
 * An S3 SigV4 query-presigned PUT that binds the exact `Content-Length` and `Content-Type`
 * (both are signed headers): a body of another size or type gets 403 SignatureDoesNotMatch.
 */
export function presignPut(
  client: S3Client,
  bucket: string,
  key: string,
  options: { contentLength: number; contentType: string; expiresIn: number },
): Promise<string> {
  return getSignedUrl(
    client,
    new PutObjectCommand({
      Bucket: bucket,
      Key: key,
      ContentType: options.contentType,
      ContentLength: options.contentLength,
    }),
    { expiresIn: options.expiresIn, signableHeaders: new Set(["content-length", "content-type"]) },
  );
}

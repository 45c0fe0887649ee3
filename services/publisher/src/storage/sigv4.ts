import { createHash, createHmac, timingSafeEqual } from "node:crypto";

/** Credentials a presigned URL is signed with. */
export type SigningCredentials = { accessKeyId: string; secretAccessKey: string; region: string };

/** S3's refusal codes for query-signed requests, with their statuses. */
export const S3_REFUSALS = {
  SignatureDoesNotMatch: 403,
  AccessDenied: 403,
  RequestTimeTooSkewed: 403,
  InvalidAccessKeyId: 403,
  AuthorizationQueryParametersError: 400,
} as const;

export type S3RefusalCode = keyof typeof S3_REFUSALS;

export type PresignVerdict = { ok: true } | { ok: false; code: S3RefusalCode; message: string };

/** A request as the verifier needs it: the raw path and query as sent, and its headers. */
export type SignedRequest = {
  method: string;
  /** The path exactly as on the wire (percent-encoding kept). */
  rawPath: string;
  /** The query string without `?`, exactly as on the wire. */
  rawQuery: string;
  header(name: string): string | undefined;
};

/** Headers a presigned PUT must sign, so that the upload's size and type are bound to it. */
export const REQUIRED_SIGNED_HEADERS = ["content-length", "content-type", "host"] as const;

/** How far in the future a request's X-Amz-Date may be (S3 allows 15 minutes of clock skew). */
const MAX_SKEW_MS = 15 * 60 * 1000;
const MAX_EXPIRES_SECONDS = 604_800;
const AMZ_DATE = /^(\d{4})(\d{2})(\d{2})T(\d{2})(\d{2})(\d{2})Z$/;

/** RFC 3986 encoding as SigV4 wants it: everything but A–Z a–z 0–9 - _ . ~ */
function sigV4Encode(text: string): string {
  return encodeURIComponent(text).replace(
    /[!'()*]/g,
    (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`,
  );
}

function parseQuery(rawQuery: string): Array<[string, string]> {
  const pairs: Array<[string, string]> = [];
  for (const part of rawQuery.split("&")) {
    if (part === "") continue;
    const at = part.indexOf("=");
    const name = at < 0 ? part : part.slice(0, at);
    const value = at < 0 ? "" : part.slice(at + 1);
    pairs.push([decodeURIComponent(name), decodeURIComponent(value)]);
  }
  return pairs;
}

const sha256Hex = (text: string) => createHash("sha256").update(text, "utf8").digest("hex");
const hmac = (key: Buffer | string, text: string) => createHmac("sha256", key).update(text, "utf8").digest();

function signingKey(secret: string, date: string, region: string, service: string): Buffer {
  return hmac(hmac(hmac(hmac(`AWS4${secret}`, date), region), service), "aws4_request");
}

function amzDateToMs(value: string): number | undefined {
  const m = AMZ_DATE.exec(value);
  if (!m) return undefined;
  const ms = Date.UTC(Number(m[1]), Number(m[2]) - 1, Number(m[3]), Number(m[4]), Number(m[5]), Number(m[6]));
  return Number.isNaN(ms) ? undefined : ms;
}

const refuse = (code: S3RefusalCode, message: string): PresignVerdict => ({ ok: false, code, message });

/** The canonical request of SigV4 for a query-signed request, with `UNSIGNED-PAYLOAD`. */
function canonicalRequest(
  request: SignedRequest,
  query: Array<[string, string]>,
  signedHeaders: string[],
): string {
  const canonicalQuery = query
    .filter(([name]) => name !== "X-Amz-Signature")
    .map(([name, value]) => [sigV4Encode(name), sigV4Encode(value)] as const)
    .sort(([a, av], [b, bv]) => (a === b ? (av < bv ? -1 : 1) : a < b ? -1 : 1))
    .map(([name, value]) => `${name}=${value}`)
    .join("&");
  const headers = signedHeaders
    .map((name) => `${name}:${(request.header(name) ?? "").trim().replace(/\s+/g, " ")}\n`)
    .join("");
  return [
    request.method.toUpperCase(),
    request.rawPath,
    canonicalQuery,
    headers,
    signedHeaders.join(";"),
    "UNSIGNED-PAYLOAD",
  ].join("\n");
}

/**
 * Checks an S3 SigV4 query-presigned request as S3 does: the algorithm and parameters, the access
 * key, the signature over method, path, query and the signed headers (content-length and
 * content-type among them, so a body of another size or type is refused), clock skew and expiry.
 */
export function verifyPresignedRequest(
  request: SignedRequest,
  credentials: SigningCredentials,
  now: Date,
): PresignVerdict {
  let query: Array<[string, string]>;
  try {
    query = parseQuery(request.rawQuery);
  } catch {
    return refuse("AuthorizationQueryParametersError", "The query string is not well formed.");
  }
  const param = (name: string) => query.find(([key]) => key === name)?.[1];
  const [algorithm, credential, amzDate, expires, signedList, signature] = [
    "X-Amz-Algorithm",
    "X-Amz-Credential",
    "X-Amz-Date",
    "X-Amz-Expires",
    "X-Amz-SignedHeaders",
    "X-Amz-Signature",
  ].map(param);
  if (!algorithm || !credential || !amzDate || !expires || !signedList || !signature) {
    return refuse("AccessDenied", "Query-string authentication requires the X-Amz-* signature parameters.");
  }
  if (algorithm !== "AWS4-HMAC-SHA256") {
    return refuse("AuthorizationQueryParametersError", "X-Amz-Algorithm only supports AWS4-HMAC-SHA256.");
  }
  const signedAt = amzDateToMs(amzDate);
  const expiresSeconds = /^\d{1,6}$/.test(expires) ? Number(expires) : Number.NaN;
  if (signedAt === undefined || !(expiresSeconds >= 1 && expiresSeconds <= MAX_EXPIRES_SECONDS)) {
    return refuse("AuthorizationQueryParametersError", "X-Amz-Date or X-Amz-Expires is not valid.");
  }
  const [keyId, scopeDate, region, service, terminator, ...extra] = credential.split("/");
  if (
    extra.length > 0 ||
    terminator !== "aws4_request" ||
    service !== "s3" ||
    scopeDate !== amzDate.slice(0, 8)
  ) {
    return refuse("AuthorizationQueryParametersError", "X-Amz-Credential is not well formed.");
  }
  if (keyId !== credentials.accessKeyId) {
    return refuse("InvalidAccessKeyId", "The AWS Access Key Id you provided does not exist in our records.");
  }
  const signedHeaders = signedList.split(";");
  if (REQUIRED_SIGNED_HEADERS.some((name) => !signedHeaders.includes(name))) {
    return refuse("AccessDenied", "The URL must sign content-length, content-type and host.");
  }
  const stringToSign = [
    "AWS4-HMAC-SHA256",
    amzDate,
    `${scopeDate}/${region}/s3/aws4_request`,
    sha256Hex(canonicalRequest(request, query, signedHeaders)),
  ].join("\n");
  const expected = createHmac(
    "sha256",
    signingKey(credentials.secretAccessKey, scopeDate, region as string, "s3"),
  )
    .update(stringToSign, "utf8")
    .digest();
  const given = /^[0-9a-f]{64}$/.test(signature) ? Buffer.from(signature, "hex") : Buffer.alloc(0);
  if (
    region !== credentials.region ||
    given.length !== expected.length ||
    !timingSafeEqual(given, expected)
  ) {
    return refuse(
      "SignatureDoesNotMatch",
      "The request signature we calculated does not match the signature you provided. Check your key and signing method.",
    );
  }
  if (signedAt - now.getTime() > MAX_SKEW_MS) {
    return refuse(
      "RequestTimeTooSkewed",
      "The difference between the request time and the current time is too large.",
    );
  }
  if (now.getTime() > signedAt + expiresSeconds * 1000) return refuse("AccessDenied", "Request has expired");
  return { ok: true };
}

/** S3's XML error document. */
export function s3ErrorXml(code: string, message: string, requestId: string): string {
  const xmlText = (text: string) =>
    text.replace(
      /[<>&'"]/g,
      (c) => ({ "<": "&lt;", ">": "&gt;", "&": "&amp;", "'": "&apos;", '"': "&quot;" })[c] as string,
    );
  return `<?xml version="1.0" encoding="UTF-8"?>\n<Error><Code>${xmlText(code)}</Code><Message>${xmlText(message)}</Message><RequestId>${xmlText(requestId)}</RequestId></Error>`;
}

import { createHmac, timingSafeEqual } from "node:crypto";

export type SessionClaims = {
  scope: "com.atproto.access" | "com.atproto.appPass" | "com.atproto.refresh";
  sub: string;
  aud: string;
  iat: number;
  exp: number;
  jti?: string;
};

const encode = (value: unknown) => Buffer.from(JSON.stringify(value)).toString("base64url");

/** Signs session claims as an HS256 JWT (what a PDS's accessJwt and refreshJwt are). */
export function signJwt(claims: SessionClaims, secret: Buffer, type: "at+jwt" | "refresh+jwt"): string {
  const body = `${encode({ typ: type, alg: "HS256" })}.${encode(claims)}`;
  return `${body}.${createHmac("sha256", secret).update(body).digest("base64url")}`;
}

/** The claims of a JWT this sandbox signed; undefined for anything else (bad form or signature). */
export function verifyJwt(token: string, secret: Buffer): SessionClaims | undefined {
  const parts = token.split(".");
  if (parts.length !== 3) return undefined;
  const [header, payload, signature] = parts as [string, string, string];
  const expected = createHmac("sha256", secret).update(`${header}.${payload}`).digest();
  const given = Buffer.from(signature, "base64url");
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) return undefined;
  try {
    return JSON.parse(Buffer.from(payload, "base64url").toString("utf8")) as SessionClaims;
  } catch {
    return undefined;
  }
}

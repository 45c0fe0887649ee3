import { randomBytes } from "node:crypto";

/** A random, URL-safe identifier with a readable prefix, e.g. `fav_3kTq…`. */
export function newId(prefix: string): string {
  return `${prefix}_${randomBytes(15).toString("base64url")}`;
}

/** A high-entropy secret token (for API keys), prefix included. */
export function newSecret(prefix: string): string {
  return `${prefix}_${randomBytes(32).toString("base64url")}`;
}

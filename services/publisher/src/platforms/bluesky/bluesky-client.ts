import type { Readable } from "node:stream";
import type { Clock } from "@app/core";
import { isValidDid } from "@atproto/syntax";
import { type FailureKind, PlatformError, parseRateLimitReset, parseRetryAfter } from "../errors.ts";
import { platformFetch, readJson, stringField } from "../http.ts";

/** An AT Protocol session: what createSession and refreshSession answer. */
export type BlueskySession = { accessJwt: string; refreshJwt: string; did: string; handle: string };

/** A blob reference as `uploadBlob` returns it, embedded as is in a record. */
export type BlobRef = Record<string, unknown>;

/** `app.bsky.embed.defs#aspectRatio`: a picture's width and height, positive integers. */
export type AspectRatio = { width: number; height: number };

/** The aspect ratio of a picture of this size, or undefined when its size is not known. */
export function aspectRatioOf(
  width: number | undefined,
  height: number | undefined,
): AspectRatio | undefined {
  if (!width || !height || !Number.isInteger(width) || !Number.isInteger(height) || width < 1 || height < 1) {
    return undefined;
  }
  return { width, height };
}

/** The XRPC calls publishing makes on a PDS (interface, so tests can swap it). */
export interface BlueskyAdapter {
  createSession(service: string, identifier: string, appPassword: string): Promise<BlueskySession>;
  /** A new session for a refresh JWT; the old refresh JWT stops working. */
  refreshSession(service: string, refreshJwt: string): Promise<BlueskySession>;
  uploadBlob(
    service: string,
    accessJwt: string,
    blob: { body: Readable; size: number; contentType: string },
  ): Promise<BlobRef>;
  /** Creates `app.bsky.feed.post/<rkey>`; an existing rkey throws reason `RecordAlreadyExists`. */
  createRecord(
    service: string,
    accessJwt: string,
    input: { repo: string; rkey: string; record: Record<string, unknown> },
  ): Promise<{ uri: string; cid: string }>;
  /**
   * Deletes `app.bsky.feed.post/<rkey>` of the caller's repo (`com.atproto.repo.deleteRecord`). A
   * record that is not there is no error, as on a PDS: afterwards it is gone either way.
   */
  deleteRecord(service: string, accessJwt: string, input: { repo: string; rkey: string }): Promise<void>;
  /**
   * The DID a handle stands for (`com.atproto.identity.resolveHandle`), or undefined when none
   * does; throws a transient PlatformError when the PDS cannot answer now.
   */
  resolveHandle(service: string, handle: string): Promise<string | undefined>;
  /** The post at `rkey`, or null when there is none (no auth needed, as on a PDS). */
  getRecord(
    service: string,
    input: { repo: string; rkey: string },
  ): Promise<{ uri: string; cid: string } | null>;
}

export type BlueskyConfig = { timeoutMs: number; uploadTimeoutMs: number };

export const POST_COLLECTION = "app.bsky.feed.post";
const AUTH_ERRORS = new Set(["AuthenticationRequired", "ExpiredToken", "InvalidToken"]);

async function xrpcError(res: Response, clock: Clock, authKind: FailureKind): Promise<PlatformError> {
  const body = await readJson(res);
  const code = stringField(body, "error") ?? `http_${res.status}`;
  let kind: FailureKind = res.status === 429 || res.status >= 500 ? "transient" : "permanent";
  if (AUTH_ERRORS.has(code) || res.status === 401) kind = authKind;
  const now = clock.now();
  const retryAfterMs =
    parseRetryAfter(res.headers.get("retry-after"), now) ??
    parseRateLimitReset(res.headers.get("ratelimit-reset"), now);
  return new PlatformError("bluesky", kind, code, stringField(body, "message") ?? `HTTP ${res.status}`, {
    status: res.status,
    retryAfterMs,
  });
}

function toSession(body: Record<string, unknown>): BlueskySession {
  const [accessJwt, refreshJwt, did, handle] = ["accessJwt", "refreshJwt", "did", "handle"].map((name) =>
    stringField(body, name),
  );
  if (!accessJwt || !refreshJwt || !did) {
    throw new PlatformError("bluesky", "transient", "bad_response", "The session answer is incomplete.");
  }
  return { accessJwt, refreshJwt, did, handle: handle ?? did };
}

/** The real AT Protocol client for a PDS (`https://bsky.social` or the user's own). */
export function createBlueskyClient(config: BlueskyConfig, clock: Clock): BlueskyAdapter {
  const xrpc = (service: string, name: string) => `${service.replace(/\/$/, "")}/xrpc/${name}`;
  const json = (token?: string) => ({
    "content-type": "application/json",
    ...(token ? { authorization: `Bearer ${token}` } : {}),
  });

  return {
    async createSession(service, identifier, appPassword) {
      const res = await platformFetch("bluesky", {
        method: "POST",
        url: xrpc(service, "com.atproto.server.createSession"),
        headers: json(),
        body: JSON.stringify({ identifier, password: appPassword }),
        timeoutMs: config.timeoutMs,
      });
      if (!res.ok) throw await xrpcError(res, clock, "reconnect");
      return toSession(await readJson(res));
    },
    async refreshSession(service, refreshJwt) {
      const res = await platformFetch("bluesky", {
        method: "POST",
        url: xrpc(service, "com.atproto.server.refreshSession"),
        headers: { authorization: `Bearer ${refreshJwt}` },
        timeoutMs: config.timeoutMs,
      });
      if (!res.ok) throw await xrpcError(res, clock, "reconnect");
      return toSession(await readJson(res));
    },
    async uploadBlob(service, accessJwt, { body, size, contentType }) {
      const res = await platformFetch("bluesky", {
        method: "POST",
        url: xrpc(service, "com.atproto.repo.uploadBlob"),
        headers: {
          authorization: `Bearer ${accessJwt}`,
          "content-type": contentType,
          "content-length": String(size),
        },
        body,
        timeoutMs: config.uploadTimeoutMs,
      });
      if (!res.ok) throw await xrpcError(res, clock, "unauthorized");
      const blob = (await readJson(res)).blob;
      if (!blob || typeof blob !== "object") {
        throw new PlatformError("bluesky", "transient", "bad_response", "No blob in the answer.");
      }
      return blob as BlobRef;
    },
    async createRecord(service, accessJwt, { repo, rkey, record }) {
      const res = await platformFetch("bluesky", {
        method: "POST",
        url: xrpc(service, "com.atproto.repo.createRecord"),
        headers: json(accessJwt),
        body: JSON.stringify({ repo, collection: POST_COLLECTION, rkey, record }),
        timeoutMs: config.timeoutMs,
      });
      if (!res.ok) throw await xrpcError(res, clock, "unauthorized");
      const body = await readJson(res);
      return { uri: stringField(body, "uri") ?? "", cid: stringField(body, "cid") ?? "" };
    },
    async deleteRecord(service, accessJwt, { repo, rkey }) {
      const res = await platformFetch("bluesky", {
        method: "POST",
        url: xrpc(service, "com.atproto.repo.deleteRecord"),
        headers: json(accessJwt),
        body: JSON.stringify({ repo, collection: POST_COLLECTION, rkey }),
        timeoutMs: config.timeoutMs,
      });
      if (!res.ok) throw await xrpcError(res, clock, "unauthorized");
      await res.body?.cancel();
    },
    async resolveHandle(service, handle) {
      const res = await platformFetch("bluesky", {
        method: "GET",
        url: `${xrpc(service, "com.atproto.identity.resolveHandle")}?${new URLSearchParams({ handle })}`,
        timeoutMs: config.timeoutMs,
      });
      if (res.ok) {
        const did = stringField(await readJson(res), "did");
        return isValidDid(did) ? did : undefined;
      }
      // A handle that does not resolve is an answer; a platform that cannot answer now is not.
      const error = await xrpcError(res, clock, "permanent");
      if (error.kind === "transient") throw error;
      return undefined;
    },
    async getRecord(service, { repo, rkey }) {
      const query = new URLSearchParams({ repo, collection: POST_COLLECTION, rkey });
      const res = await platformFetch("bluesky", {
        method: "GET",
        url: `${xrpc(service, "com.atproto.repo.getRecord")}?${query}`,
        timeoutMs: config.timeoutMs,
      });
      if (res.ok) {
        const body = await readJson(res);
        return { uri: stringField(body, "uri") ?? "", cid: stringField(body, "cid") ?? "" };
      }
      const error = await xrpcError(res, clock, "unauthorized");
      if (error.reason === "RecordNotFound") return null;
      throw error;
    },
  };
}

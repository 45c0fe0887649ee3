import type { IncomingMessage } from "node:http";
import type { Clock, Logger, ServiceApp } from "@app/core";
import { requestHeader, requestIdOf } from "@app/core";
import type { Context } from "hono";
import { type ErrorRenderer, PlatformFailure } from "./failure.ts";
import type { Fault, FaultBook } from "./faults.ts";
import {
  type LoggedRequest,
  type RequestLog,
  redactAuthorization,
  redactQuery,
  type TwinPlatform,
} from "./request-log.ts";
import { contentfulStatus } from "./status.ts";

/** What every twin operation shares: the request log, the fault book, the clock and the logger. */
export type OperationKit = { log: RequestLog; faults: FaultBook; clock: Clock; logger: Logger };

export type OperationSpec = {
  /** The name faults and the request log use, e.g. `youtube.videos.insert`. */
  operation: string;
  platform: TwinPlatform;
  method: "get" | "post" | "put" | "delete";
  path: string;
  summary: string;
  description?: string;
  /** The platform's error body for this operation. */
  errors: ErrorRenderer;
};

export type OperationHandler = (c: Context) => Promise<Response> | Response;

const TAGS: Record<TwinPlatform, string> = {
  google: "Google OAuth",
  youtube: "YouTube Data API",
  tiktok: "TikTok API",
  bluesky: "Bluesky PDS (XRPC)",
};

/** Every operation mounted, for `GET /_sandbox/operations` and fault validation. */
export const mountedOperations = new WeakMap<ServiceApp, Map<string, OperationSpec>>();

function respond(c: Context, errors: ErrorRenderer, failure: PlatformFailure | Fault): Response {
  const isFault = !(failure instanceof PlatformFailure);
  const headers: Record<string, string> = isFault
    ? failure.retryAfterSeconds === undefined
      ? {}
      : { "Retry-After": String(failure.retryAfterSeconds) }
    : failure.headers;
  const rendered = errors({
    status: failure.status,
    code: isFault ? failure.error : failure.code,
    message: failure.message,
    headers,
  });
  return c.json(rendered.body as object, contentfulStatus(rendered.status), headers);
}

async function misbehave(c: Context, fault: Fault): Promise<void> {
  const socket = (c.env as { incoming?: IncomingMessage } | undefined)?.incoming?.socket;
  if (fault.kind === "timeout") {
    await new Promise<void>((resolve) => {
      const timer = setTimeout(resolve, fault.holdMs);
      socket?.once("close", () => {
        clearTimeout(timer);
        resolve();
      });
    });
  }
  if (socket && "resetAndDestroy" in socket && typeof socket.resetAndDestroy === "function") {
    socket.resetAndDestroy();
  } else {
    socket?.destroy();
  }
}

/**
 * Mounts one twin operation: listed in the OpenAPI document, every call written to the request
 * log (secrets redacted), an injected fault applied before the handler runs, and any refusal or
 * unexpected error answered in the platform's own error shape (never the platform-wide body).
 */
export function mountOperation(
  app: ServiceApp,
  kit: OperationKit,
  spec: OperationSpec,
  handler: OperationHandler,
): void {
  const registry = mountedOperations.get(app) ?? new Map<string, OperationSpec>();
  registry.set(spec.operation, spec);
  mountedOperations.set(app, registry);
  app.openAPIRegistry.registerPath({
    method: spec.method,
    path: spec.path.replace(/:(\w+)/g, "{$1}"),
    operationId: spec.operation,
    tags: [TAGS[spec.platform]],
    summary: spec.summary,
    description: spec.description,
    responses: { default: { description: "The platform's answer, in its own format" } },
  });
  app.on(spec.method.toUpperCase(), spec.path, async (c) => {
    const url = new URL(c.req.url);
    const length = requestHeader(c, "content-length");
    const entry: Omit<LoggedRequest, "seq"> = {
      at: kit.clock.now().toISOString(),
      requestId: requestIdOf(c) ?? null,
      platform: spec.platform,
      operation: spec.operation,
      method: c.req.method,
      path: url.pathname,
      query: redactQuery(url),
      authorization: redactAuthorization(requestHeader(c, "authorization")),
      contentLength: length !== undefined && /^\d+$/.test(length) ? Number(length) : null,
      contentRange: requestHeader(c, "content-range") ?? null,
      status: null,
      fault: null,
    };
    try {
      const fault = kit.faults.take(spec.operation);
      if (fault) {
        entry.fault = fault.id;
        if (fault.kind !== "error") {
          await misbehave(c, fault);
          return c.body(null, 500);
        }
        const response = respond(c, spec.errors, fault);
        entry.status = response.status;
        return response;
      }
      const response = await handler(c);
      entry.status = response.status;
      return response;
    } catch (error) {
      if (!(error instanceof PlatformFailure)) {
        kit.logger.error({ err: error, operation: spec.operation }, "sandbox operation failed");
      }
      const failure =
        error instanceof PlatformFailure ? error : new PlatformFailure(500, "", "Internal error");
      const response = respond(c, spec.errors, failure);
      entry.status = response.status;
      return response;
    } finally {
      kit.log.record(entry);
    }
  });
}

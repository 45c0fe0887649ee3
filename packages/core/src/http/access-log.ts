import type { MiddlewareHandler } from "hono";
import type { Logger } from "../logger.ts";

/**
 * One JSON line per request: id, method, path, status and duration. At debug level
 * the line also carries the request headers, secrets redacted by the logger's `headers` serializer.
 */
export function accessLog(logger: Logger): MiddlewareHandler {
  return async (c, next) => {
    const started = performance.now();
    await next();
    if (!logger.isLevelEnabled("info")) return;
    const line: Record<string, unknown> = {
      requestId: c.get("requestId"),
      method: c.req.method,
      path: c.req.path,
      status: c.res.status,
      durationMs: Math.round((performance.now() - started) * 100) / 100,
    };
    if (logger.isLevelEnabled("debug")) line.headers = c.req.raw.headers;
    logger.info(line, "request");
  };
}

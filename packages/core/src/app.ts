import type { HttpBindings } from "@hono/node-server";
import { createRoute, OpenAPIHono, z } from "@hono/zod-openapi";
import { ApiError, createErrorHandler, errorResponse } from "./errors.ts";
import { bodyDeadline } from "./http/body-deadline.ts";
import { contentLengthGuard } from "./http/content-length.ts";
import { mountDocs } from "./http/docs.ts";
import { notFoundOrMethodNotAllowed } from "./http/not-found.ts";
import { requestContext } from "./http/request-context.ts";
import type { Logger } from "./logger.ts";
import { validationHook } from "./validation.ts";

export type AppEnv = { Bindings: HttpBindings; Variables: { requestId: string } };
export type ServiceApp = OpenAPIHono<AppEnv>;

/** The platform error body, for route response schemas. */
export const ErrorBodySchema = z
  .object({
    error: z.string().openapi({ example: "VALIDATION_FAILED" }),
    message: z.string(),
  })
  .catchall(z.unknown())
  .openapi("Error");

/** A JSON response entry for `createRoute({responses})`. */
export function jsonResponse<T extends z.ZodType>(schema: T, description: string) {
  return { description, content: { "application/json": { schema } } };
}

/** The error response entry for `createRoute({responses})`. */
export function errorResponseSpec(description: string) {
  return jsonResponse(ErrorBodySchema, description);
}

export type ServiceAppOptions = {
  /** Service name, shown in the docs title and logs. */
  name: string;
  title: string;
  version: string;
  description?: string;
  logger: Logger;
  /** Throws when the service cannot serve (for example its database is unreachable). */
  checkReady: () => Promise<void>;
  /** Largest JSON body, default 1 MiB. */
  maxBodyBytes?: number;
  /** Paths whose bodies are guarded by their own route (uploads). */
  ownBodyGuard?: (path: string, method: string) => boolean;
  /** How long a request may take to send its body (default 20 s); uploads (`ownBodyGuard`) excepted. */
  bodyTimeoutMs?: number;
  /** Adjusts the generated OpenAPI document (extensions, security schemes). */
  decorateOpenApi?: (document: Record<string, unknown>) => Record<string, unknown>;
};

const healthRoute = createRoute({
  method: "get",
  path: "/healthz",
  operationId: "healthz",
  tags: ["Operations"],
  summary: "Liveness: the process is up",
  responses: { 200: jsonResponse(z.object({ status: z.literal("ok") }), "The service is alive") },
});

const readyRoute = createRoute({
  method: "get",
  path: "/readyz",
  operationId: "readyz",
  tags: ["Operations"],
  summary: "Readiness: the database answers",
  responses: {
    200: jsonResponse(z.object({ status: z.literal("ready") }), "The service can serve requests"),
    503: errorResponseSpec("A dependency is unavailable"),
  },
});

/**
 * The Hono app every service starts from: request ids, access log with redaction,
 * the body-size guard, the one error handler, 404 and 405 bodies, health, readiness,
 * `/openapi.json` generated from the registered routes and `/docs`.
 */
export function createServiceApp(options: ServiceAppOptions): ServiceApp {
  const app = new OpenAPIHono<AppEnv>({ defaultHook: validationHook });
  app.use(requestContext(options.logger));
  app.on(
    ["POST", "PUT", "PATCH"],
    "*",
    contentLengthGuard({ maxBytes: options.maxBodyBytes ?? 1024 * 1024, skip: options.ownBodyGuard }),
  );
  app.on(
    ["POST", "PUT", "PATCH"],
    "*",
    bodyDeadline({ timeoutMs: options.bodyTimeoutMs ?? 20_000, skip: options.ownBodyGuard }),
  );
  app.onError(createErrorHandler(options.logger));
  app.notFound(notFoundOrMethodNotAllowed(app as never));

  app.openapi(healthRoute, (c) => c.json({ status: "ok" as const }, 200));
  app.openapi(readyRoute, async (c) => {
    try {
      await options.checkReady();
      return c.json({ status: "ready" as const }, 200);
    } catch (error) {
      options.logger.warn({ err: error }, "readiness check failed");
      return errorResponse(c, new ApiError("NOT_READY", "The service cannot reach its database.")) as never;
    }
  });

  app.get("/openapi.json", (c) => {
    const document = app.getOpenAPI31Document({
      openapi: "3.1.0",
      info: { title: options.title, version: options.version, description: options.description },
    }) as unknown as Record<string, unknown>;
    return c.json(options.decorateOpenApi ? options.decorateOpenApi(document) : document);
  });
  mountDocs(app as never, options.title);
  return app;
}

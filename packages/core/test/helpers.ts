import { createRoute, createServiceApp, type Logger, type ServiceApp, z } from "../src/index.ts";

const echoRoute = createRoute({
  method: "post",
  path: "/echo",
  operationId: "echo",
  request: {
    body: {
      required: true,
      content: {
        "application/json": { schema: z.object({ name: z.string().min(1), count: z.number().int() }) },
      },
    },
  },
  responses: { 200: { description: "echoed", content: { "application/json": { schema: z.object({}) } } } },
});

/** A service app with a validating route and a route that fails unexpectedly. */
export function exampleApp(logger: Logger, options: { maxBodyBytes?: number } = {}): ServiceApp {
  const app = createServiceApp({
    name: "example",
    title: "Example",
    version: "1.0.0",
    logger,
    checkReady: async () => undefined,
    maxBodyBytes: options.maxBodyBytes,
  });
  app.openapi(echoRoute, (c) => c.json(c.req.valid("json"), 200));
  app.get("/boom", () => {
    throw new Error("database password is hunter2");
  });
  return app;
}

import { createLogger, createServiceApp, serveApp } from "@app/core";

/** Our stack: request id, access log with redaction (to stdout), body guard, 405/404, error handler. */
const app = createServiceApp({
  name: "bench",
  title: "Bench",
  version: "1.0.0",
  logger: createLogger({ name: "bench", level: "info" }),
  checkReady: async () => undefined,
});
app.get("/ping", (c) => c.json({ ok: true }));
const server = await serveApp(app as never, { host: "127.0.0.1", port: 0 });
process.send?.({ port: server.port });
process.on("disconnect", () => void server.close());

import { serve } from "@hono/node-server";
import { Hono } from "hono";

/** The baseline: a bare Hono app with the same trivial route. */
const app = new Hono();
app.get("/ping", (c) => c.json({ ok: true }));
const server = serve({ fetch: app.fetch, hostname: "127.0.0.1", port: 0 }, (info) => {
  process.send?.({ port: info.port });
});
process.on("disconnect", () => server.close());

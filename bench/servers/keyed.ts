import {
  createLogger,
  createRoute,
  createServiceApp,
  jsonResponse,
  requestHeader,
  serveApp,
  z,
} from "@app/core";
import { apiKeyAuth, apiKeyHash, MAX_API_KEY_LENGTH } from "@app/edge";
import type { MiddlewareHandler } from "hono";
import { BENCH_KEY } from "./bench-key.ts";

/**
 * A key-protected trivial route on our stack, twice: behind the guard as each service wrote it
 * before `@app/edge` (the caller kept in a module `WeakMap`, read back by a function), and behind
 * the shared `apiKeyAuth` (the caller on `c.var.caller`). Both verify the same key the same way
 * (its SHA-256 looked up in memory), so the difference is the middleware alone.
 */
const callers = new Map([[apiKeyHash(BENCH_KEY), { keyId: "key_bench" }]]);
const verify = (key: string) => callers.get(apiKeyHash(key));

const holders = new WeakMap<Request, { keyId: string }>();
const weakMapGuard: MiddlewareHandler = async (c, next) => {
  const key = requestHeader(c, "x-api-key");
  const holder = key && key.length <= MAX_API_KEY_LENGTH ? verify(key) : undefined;
  if (!holder) return c.json({ error: "UNAUTHORIZED", message: "no" }, 401);
  holders.set(c.req.raw, holder);
  await next();
};
const sharedGuard = apiKeyAuth({
  source: { header: "x-api-key" },
  verify,
  messages: { missing: "Send your key.", invalid: "This key is not valid." },
});

const pong = jsonResponse(z.object({ keyId: z.string() }), "The caller's key");
const app = createServiceApp({
  name: "bench",
  title: "Bench",
  version: "1.0.0",
  logger: createLogger({ name: "bench", level: "info" }),
  checkReady: async () => undefined,
});
app.openapi(
  createRoute({ method: "get", path: "/old", middleware: weakMapGuard, responses: { 200: pong } }),
  (c) => c.json({ keyId: holders.get(c.req.raw)?.keyId ?? "" }, 200),
);
app.openapi(
  createRoute({ method: "get", path: "/new", middleware: sharedGuard, responses: { 200: pong } }),
  (c) => c.json({ keyId: c.var.caller.keyId }, 200),
);
const server = await serveApp(app, { host: "127.0.0.1", port: 0 });
process.send?.({ port: server.port });
process.on("disconnect", () => void server.close());

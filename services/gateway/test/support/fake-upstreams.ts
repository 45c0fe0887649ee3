import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";

/** What a fake upstream saw of one request. */
export type SeenRequest = { method: string; path: string; headers: IncomingMessage["headers"] };

export type FakeServer = { url: URL; seen: SeenRequest[]; close(): Promise<void> };

type Handler = (req: IncomingMessage, res: ServerResponse, url: URL) => void;

/** A `node:http` server on 127.0.0.1 (a free port) that records every request it gets. */
export async function startServer(handler: Handler): Promise<FakeServer> {
  const seen: SeenRequest[] = [];
  const server = createServer((req, res) => {
    const url = new URL(req.url ?? "/", "http://upstream.invalid");
    seen.push({ method: req.method ?? "", path: req.url ?? "", headers: req.headers });
    handler(req, res, url);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: new URL(`http://127.0.0.1:${port}`),
    seen,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

export function sendJson(
  res: ServerResponse,
  status: number,
  body: unknown,
  headers: Record<string, string> = {},
) {
  res.writeHead(status, { "content-type": "application/json", ...headers });
  res.end(JSON.stringify(body));
}

/** The fake shop: checks `x-shop-key` as the real one does, answers the shop, services and slots. */
export function fakeShop(shopKey: string): Promise<FakeServer> {
  return startServer((req, res, url) => {
    if (req.method !== "GET" || url.pathname !== "/api/shops/agent-availability") {
      return sendJson(res, 404, { error: "NOT_FOUND", message: "no such route" });
    }
    if (req.headers["x-shop-key"] !== shopKey) {
      return sendJson(res, 401, { error: "UNAUTHORIZED", message: "This shop key is not valid." });
    }
    const shop = { id: "shop_1", name: "Test Barbers", timeZone: "Europe/Berlin", currency: "EUR" };
    const services = [{ id: "svc_cut", name: "Haircut", durationMinutes: 30, price: "28.00", capacity: 2 }];
    const service = url.searchParams.get("service");
    if (service === null) return sendJson(res, 200, { shop, services });
    if (service !== "svc_cut")
      return sendJson(res, 404, { error: "SERVICE_NOT_FOUND", message: "no service" });
    sendJson(res, 200, {
      shop,
      services,
      slots: [
        {
          start: `${url.searchParams.get("from") ?? "2026-06-15"}T09:00:00+02:00`,
          end: "…",
          capacityLeft: 2,
        },
      ],
      echo: Object.fromEntries(url.searchParams),
    });
  });
}

const POSTS = Array.from({ length: 25 }, (_, index) => ({
  id: `post_${String(25 - index).padStart(2, "0")}`,
  status: index % 2 === 0 ? "published" : "scheduled",
  platforms: ["bluesky"],
}));

/** The fake publisher: checks `x-api-key`, lists posts with a cursor, one post, connections. */
export function fakePublisher(apiKey: string): Promise<FakeServer> {
  return startServer((req, res, url) => {
    if (req.headers["x-api-key"] !== apiKey) {
      return sendJson(res, 401, { error: "UNAUTHORIZED", message: "Invalid API key." });
    }
    if (url.pathname === "/api/v1/posts") {
      const status = url.searchParams.get("status");
      const limit = Number(url.searchParams.get("limit") ?? "20");
      const after = url.searchParams.get("cursor");
      const matching = POSTS.filter((post) => !status || post.status === status);
      const start = after ? matching.findIndex((post) => post.id === after) + 1 : 0;
      const page = matching.slice(start, start + limit);
      const more = start + limit < matching.length;
      return sendJson(res, 200, { posts: page, nextCursor: more ? (page.at(-1)?.id ?? null) : null });
    }
    const one = /^\/api\/v1\/posts\/([^/]+)$/.exec(url.pathname);
    if (one) {
      const post = POSTS.find((candidate) => candidate.id === decodeURIComponent(one[1] as string));
      if (!post) return sendJson(res, 404, { error: "NOT_FOUND", message: "No such post." });
      return sendJson(res, 200, {
        ...post,
        targets: [{ platform: "bluesky", status: post.status, error: null }],
      });
    }
    if (url.pathname === "/api/v1/connections") {
      return sendJson(res, 200, { connections: [{ id: "conn_1", platform: "bluesky", accountName: "@me" }] });
    }
    sendJson(res, 404, { error: "NOT_FOUND", message: "no such route" });
  });
}

/** An upstream that accepts the connection and never answers. */
export function silentUpstream(): Promise<FakeServer> {
  return startServer(() => undefined);
}

/** An upstream that answers 500 and quotes every header it got (as a careless one might). */
export function leakyFailingUpstream(): Promise<FakeServer> {
  return startServer((req, res) =>
    sendJson(res, 500, { error: "BOOM", message: "failed", headers: req.headers }),
  );
}

/** An upstream whose answer is `bytes` long (without announcing its length when `chunked`). */
export function oversizeUpstream(bytes: number, chunked: boolean): Promise<FakeServer> {
  return startServer((_req, res) => {
    const body = JSON.stringify({ padding: "x".repeat(bytes) });
    res.writeHead(
      200,
      chunked
        ? { "content-type": "application/json" }
        : {
            "content-type": "application/json",
            "content-length": String(Buffer.byteLength(body)),
          },
    );
    if (!chunked) return res.end(body);
    const half = Math.floor(body.length / 2);
    res.write(body.slice(0, half));
    setTimeout(() => res.end(body.slice(half)), 5);
  });
}

/** A URL on 127.0.0.1 where nothing listens (a port just released). */
export async function closedPortUrl(): Promise<URL> {
  const server = await startServer(() => undefined);
  await server.close();
  return server.url;
}

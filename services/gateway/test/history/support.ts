import type { ServiceApp } from "@app/core";
import { json } from "@app/testkit";
import { type FakeServer, sendJson, startServer } from "../support/fake-upstreams.ts";
import { bearer, postJson } from "../support/harness.ts";

/** The markets tool, with `ref` telling the fake markets upstream how to answer. */
export const marketsRun = (ref: string) => ({
  provider: "markets",
  endpoint: "/pm/event",
  method: "GET",
  input: { queryParams: { ref } },
});

/** The JSON text the fake markets answers for `ref=exact`: spacing and a number `JSON.parse` cannot keep. */
export const EXACT_OUTPUT = '{"big": 1e400, "spaced" : [1, 2]}';

/**
 * A fake markets upstream: `ref=<status>` answers that status with `{ref}`; `ref=exact` answers
 * {@link EXACT_OUTPUT} as it stands; anything else 200 `{ref}`.
 */
export function fakeMarkets(): Promise<FakeServer> {
  return startServer((_req, res, url) => {
    const ref = url.searchParams.get("ref") ?? "";
    if (ref === "exact") {
      res.writeHead(200, { "content-type": "application/json" });
      return res.end(EXACT_OUTPUT);
    }
    sendJson(res, /^\d{3}$/.test(ref) ? Number(ref) : 200, { ref });
  });
}

/** Every page of a paged history list (`runs` or `entries`), following `nextCursor`. */
export async function allPages<T>(
  app: ServiceApp,
  path: string,
  key: string,
  field: "runs" | "entries",
  limit: number,
): Promise<{ items: T[]; pages: T[][] }> {
  const pages: T[][] = [];
  let cursor: string | null = null;
  do {
    const separator = path.includes("?") ? "&" : "?";
    const url = `${path}${separator}limit=${limit}${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ""}`;
    const res = await app.request(url, { headers: bearer(key) });
    if (res.status !== 200) throw new Error(`${url}: ${res.status} ${await res.text()}`);
    const body = await json(res);
    pages.push(body[field]);
    cursor = body.nextCursor;
    if (pages.length > 100) throw new Error("the pages never end");
  } while (cursor !== null);
  return { items: pages.flat(), pages };
}

/** Runs a tool over `POST /v1/run`; the envelope (or error body) and the status. */
export async function run(
  app: ServiceApp,
  key: string,
  body: unknown,
  headers: Record<string, string> = {},
  // biome-ignore lint/suspicious/noExplicitAny: assertions inspect arbitrary JSON
): Promise<{ status: number; body: any; text: string }> {
  const res = await postJson(app, "/v1/run", body, { ...bearer(key), ...headers });
  const text = await res.text();
  return { status: res.status, body: JSON.parse(text), text };
}

/** A GET with the gateway key. */
export function getWithKey(app: ServiceApp, path: string, key: string): Promise<Response> {
  return Promise.resolve(app.request(path, { headers: bearer(key) }));
}

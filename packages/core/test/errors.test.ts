import { captureLogs, json } from "@app/testkit";
import { describe, expect, it } from "vitest";
import { ApiError, defineErrors, PLATFORM_ERRORS } from "../src/index.ts";
import { exampleApp } from "./helpers.ts";

describe("platform error model", () => {
  const { logger, lines } = captureLogs();
  const app = exampleApp(logger);

  it("answers a failed validation with 400 VALIDATION_FAILED and each issue", async () => {
    const res = await app.request("/echo", {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ name: "", count: 1.5 }),
    });
    expect(res.status).toBe(400);
    const body = await json(res);
    expect(body.error).toBe("VALIDATION_FAILED");
    expect(typeof body.message).toBe("string");
    expect(body.issues.map((issue: { path: string }) => issue.path).sort()).toEqual(["count", "name"]);
  });

  it("answers malformed JSON with 400 MALFORMED_JSON", async () => {
    const res = await app.request("/echo", {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: '{"name": ',
    });
    expect(res.status).toBe(400);
    expect((await json(res)).error).toBe("MALFORMED_JSON");
  });

  it("answers an unknown route with 404 NOT_FOUND", async () => {
    const res = await app.request("/nowhere");
    expect(res.status).toBe(404);
    expect(await json(res)).toEqual({ error: "NOT_FOUND", message: "No route for GET /nowhere." });
  });

  it("answers a known path with the wrong method with 405 and Allow", async () => {
    const res = await app.request("/echo", { method: "GET" });
    expect(res.status).toBe(405);
    expect(res.headers.get("allow")).toBe("POST");
    const body = await json(res);
    expect(body.error).toBe("METHOD_NOT_ALLOWED");
    expect(body.allow).toEqual(["POST"]);
  });

  it("hides unexpected errors behind a 500 without details, and logs them", async () => {
    const res = await app.request("/boom");
    expect(res.status).toBe(500);
    const text = await res.text();
    expect(JSON.parse(text)).toEqual({ error: "INTERNAL", message: "Something went wrong on our side." });
    expect(text).not.toContain("hunter2");
    expect(text).not.toContain("at ");
    expect(lines.some((line) => line.includes("unhandled error"))).toBe(true);
  });

  it("maps every code to one status and renders details after error and message", () => {
    const error = new ApiError("RATE_LIMITED", "Slow down.", { retryAfter: 3 }, { "Retry-After": "3" });
    expect(error.status).toBe(PLATFORM_ERRORS.RATE_LIMITED);
    expect(error.toBody()).toEqual({ error: "RATE_LIMITED", message: "Slow down.", retryAfter: 3 });
    expect(Object.keys(error.toBody()).slice(0, 2)).toEqual(["error", "message"]);
  });

  it("lets a service add codes of its own, next to the platform's, rendered by the same handler", async () => {
    class ShelfError extends defineErrors({ SHELF_FULL: 409, SHELF_GONE: 410 }) {}
    const full = new ShelfError("SHELF_FULL", "The shelf is full.", { limit: 3 });
    expect(full).toBeInstanceOf(ApiError);
    expect([full.status, new ShelfError("SHELF_GONE", "Gone.").status]).toEqual([409, 410]);
    expect(new ShelfError("NOT_FOUND", "No shelf.").status).toBe(404);
    expect(full.withHeaders({ "Retry-After": "1" }).toBody()).toEqual(full.toBody());
    expect(full.withHeaders({ "Retry-After": "1" }).status).toBe(409);

    const shelves = exampleApp(logger);
    shelves.get("/full", () => {
      throw full;
    });
    const res = await shelves.request("/full");
    expect(res.status).toBe(409);
    expect(await res.json()).toEqual({ error: "SHELF_FULL", message: "The shelf is full.", limit: 3 });
  });

  it("gives every response a request id, echoing a sane one and replacing a hostile one", async () => {
    const echoed = await app.request("/healthz", { headers: { "x-request-id": "abc-123" } });
    expect(echoed.headers.get("x-request-id")).toBe("abc-123");
    const replaced = await app.request("/healthz", { headers: { "x-request-id": "<script>" } });
    expect(replaced.headers.get("x-request-id")).toMatch(/^[0-9a-f-]{36}$/);
    const fresh = await app.request("/nowhere");
    expect(fresh.headers.get("x-request-id")).toMatch(/^[0-9a-f-]{36}$/);
  });
});

import type { Context, Hono } from "hono";
import { TrieRouter } from "hono/router/trie-router";
import { ApiError, errorResponse } from "../errors.ts";

/**
 * The handler for requests no route matched: 405 `METHOD_NOT_ALLOWED` with `Allow`
 * when the path exists under other methods, else 404 `NOT_FOUND`. It runs only on
 * those requests, so matched ones pay nothing for it. The path table is built from
 * the app's routes at the first miss.
 */
export function notFoundOrMethodNotAllowed(app: Hono<never>): (c: Context) => Response {
  let router: TrieRouter<string[]> | undefined;
  const allowedMethods = (path: string): string[] => {
    if (!router) {
      const methodsByPath = new Map<string, Set<string>>();
      for (const route of app.routes) {
        // Middleware, including method-scoped middleware on "*", says nothing about which paths exist.
        if (route.method === "ALL" || route.path === "*" || route.path === "/*") continue;
        const methods = methodsByPath.get(route.path) ?? new Set<string>();
        methods.add(route.method);
        if (route.method === "GET") methods.add("HEAD");
        methodsByPath.set(route.path, methods);
      }
      router = new TrieRouter<string[]>();
      for (const [routePath, methods] of methodsByPath) router.add("ALL", routePath, [...methods]);
    }
    const allowed = new Set<string>();
    for (const [methods] of router.match("ALL", path)[0]) for (const method of methods) allowed.add(method);
    return [...allowed];
  };
  return (c) => {
    const allowed = allowedMethods(c.req.path);
    if (allowed.length > 0 && !allowed.includes(c.req.method)) {
      return errorResponse(
        c,
        new ApiError(
          "METHOD_NOT_ALLOWED",
          `${c.req.method} is not allowed on ${c.req.path}.`,
          { allow: allowed },
          {
            Allow: allowed.join(", "),
          },
        ),
      );
    }
    return errorResponse(c, new ApiError("NOT_FOUND", `No route for ${c.req.method} ${c.req.path}.`));
  };
}

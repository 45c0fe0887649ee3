import { readFile } from "node:fs/promises";
import { createRequire } from "node:module";
import { join } from "node:path";
import type { Hono } from "hono";

const require = createRequire(import.meta.url);
// The package's path helper only: its main module evaluates the whole 1.7 MB UI bundle.
const SWAGGER_DIR: string = require("swagger-ui-dist/absolute-path.js")();

const ASSETS: Record<string, string> = {
  "swagger-ui.css": "text/css; charset=utf-8",
  "swagger-ui-bundle.js": "text/javascript; charset=utf-8",
  "favicon-32x32.png": "image/png",
};

const INIT_SCRIPT = `window.addEventListener("load", function () {
  window.ui = SwaggerUIBundle({ url: "../openapi.json", dom_id: "#docs", deepLinking: true });
});
`;

function page(title: string): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${title} API reference</title>
<link rel="icon" href="docs/assets/favicon-32x32.png">
<link rel="stylesheet" href="docs/assets/swagger-ui.css">
</head>
<body>
<div id="docs"></div>
<script src="docs/assets/swagger-ui-bundle.js"></script>
<script src="docs/assets/init.js"></script>
</body>
</html>
`;
}

/**
 * Serves `GET /docs`: the Swagger UI for `/openapi.json`, with its assets read from
 * `node_modules` (no CDN: the platform runs offline).
 */
export function mountDocs(app: Hono<never>, title: string): void {
  const cache = new Map<string, Buffer>();
  app.get("/docs", (c) => c.html(page(title)));
  app.get("/docs/assets/init.js", (c) =>
    c.body(INIT_SCRIPT, 200, { "content-type": "text/javascript; charset=utf-8" }),
  );
  app.get("/docs/assets/:file", async (c) => {
    const file = c.req.param("file");
    const type = ASSETS[file];
    if (!type) return c.notFound();
    let content = cache.get(file);
    if (!content) {
      content = await readFile(join(SWAGGER_DIR, file));
      cache.set(file, content);
    }
    return c.body(new Uint8Array(content), 200, {
      "content-type": type,
      "cache-control": "public, max-age=86400",
    });
  });
}

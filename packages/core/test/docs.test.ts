import { json, silentLogger } from "@app/testkit";
import { describe, expect, it } from "vitest";
import { exampleApp } from "./helpers.ts";

describe("openapi and docs", () => {
  const app = exampleApp(silentLogger());

  it("generates /openapi.json from the registered routes", async () => {
    const res = await app.request("/openapi.json");
    expect(res.status).toBe(200);
    const doc = await json(res);
    expect(doc.openapi).toBe("3.1.0");
    expect(Object.keys(doc.paths).sort()).toEqual(["/echo", "/healthz", "/readyz"]);
    expect(doc.paths["/echo"].post.operationId).toBe("echo");
  });

  it("serves /docs with every asset from this server, none from a CDN", async () => {
    const res = await app.request("/docs");
    expect(res.status).toBe(200);
    const html = await res.text();
    expect(html).not.toMatch(/https?:\/\//);
    const assets = [...html.matchAll(/(?:src|href)="([^"]+)"/g)].map((match) => match[1] as string);
    expect(assets.length).toBeGreaterThanOrEqual(3);
    for (const asset of assets) {
      const asset_res = await app.request(`/${asset}`);
      expect(asset_res.status, asset).toBe(200);
      expect((await asset_res.arrayBuffer()).byteLength).toBeGreaterThan(0);
    }
    const init = await (await app.request("/docs/assets/init.js")).text();
    expect(init).toContain("../openapi.json");
  });

  it("refuses assets outside its list", async () => {
    expect((await app.request("/docs/assets/..%2Fpackage.json")).status).toBe(404);
  });
});

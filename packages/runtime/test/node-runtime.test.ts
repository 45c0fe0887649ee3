import { execFile } from "node:child_process";
import { readFileSync } from "node:fs";
import { delimiter } from "node:path";
import { promisify } from "node:util";
import { describe, expect, it } from "vitest";

const root = new URL("../../../", import.meta.url);
const rootPackage = JSON.parse(readFileSync(new URL("package.json", root), "utf8")) as {
  engines: { node: string };
  devDependencies: Record<string, string>;
};
const pinned = rootPackage.devDependencies.node;

describe("the platform's runtime", () => {
  it("is Node.js 24, the version the project pins and brings through npm ci", () => {
    expect(pinned).toMatch(/^24\.\d+\.\d+$/);
    expect(process.versions.node).toBe(pinned);
  });

  it("is named the same by .nvmrc, .node-version and engines", () => {
    expect(readFileSync(new URL(".nvmrc", root), "utf8").trim()).toBe(pinned);
    expect(readFileSync(new URL(".node-version", root), "utf8").trim()).toBe(pinned);
    expect(rootPackage.engines.node).toBe(">=24 <25");
  });
});

describe("npm scripts", () => {
  it("run on the pinned runtime, whatever Node runs npm itself", async () => {
    // The environment of a shell outside npm: no npm variables, no node_modules/.bin on PATH.
    const env = Object.fromEntries(Object.entries(process.env).filter(([name]) => !/^npm_/i.test(name)));
    env.PATH = (process.env.PATH ?? "")
      .split(delimiter)
      .filter((dir) => !dir.includes("node_modules"))
      .join(delimiter);
    const npmExec = ["exec", "--offline", "--", "node", "-p", "process.version"];
    const { stdout } = await promisify(execFile)("npm", npmExec, { cwd: root, env });
    expect(stdout.trim()).toBe(`v${pinned}`);
  });
});

import { readdirSync } from "node:fs";
import { createRequire } from "node:module";
import { join, relative, sep } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

const root = fileURLToPath(new URL("../../../", import.meta.url));
const require = createRequire(join(root, "package.json"));
const thisPlatform = `${process.platform}-${process.arch}`;
const header = process.report.getReport() as { header: { glibcVersionRuntime?: string } };
const otherLibc = header.header.glibcVersionRuntime ? "musl" : "glibc";

/**
 * Every native addon (`*.node`) installed for this platform: prebuilds for other platforms or
 * the other C library are skipped, as node-gyp-build skips them.
 */
function nativeAddons(dir: string): string[] {
  const found: string[] = [];
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) {
      const parent = dir.split(sep).at(-1);
      if (parent === "prebuilds" && !entry.name.startsWith(thisPlatform)) continue;
      found.push(...nativeAddons(path));
    } else if (entry.name.endsWith(".node") && !entry.name.includes(`.${otherLibc}.`)) {
      found.push(path);
    }
  }
  return found;
}

describe("native addons", () => {
  const addons = nativeAddons(join(root, "node_modules"));

  it("include libsecp256k1's prebuild, which signatures are checked with", () => {
    const prebuilds = join(root, "node_modules", "secp256k1", "prebuilds", thisPlatform);
    expect(addons.filter((path) => path.startsWith(prebuilds))).toHaveLength(1);
  });

  it.each(addons.map((path) => [relative(root, path), path]))("%s loads on this runtime", (_name, path) => {
    const module = { exports: {} };
    expect(() => process.dlopen(module, path)).not.toThrow();
  });

  it("secp256k1 resolves to its native binding, not its pure-JS fallback", () => {
    expect(require("secp256k1")).toBe(require("secp256k1/bindings"));
  });
});

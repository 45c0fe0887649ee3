/**
 * Production code cannot reach the local chain: no file under `services/<name>/src` or
 * `packages/<name>/src` (other than this package's own) imports `@app/local-chain`, directly or
 * through another file or workspace export it imports (`@app/fortune/local` would be one), and no
 * such workspace lists it in `dependencies`. The launcher, the `pay` CLI, tests, harnesses
 * (`services/<name>/testing`, `services/<name>/local`) and the bench may import it, and each
 * workspace that does declares it.
 */
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

const ROOT = fileURLToPath(new URL("../../../", import.meta.url));
const LOCAL_CHAIN = "@app/local-chain";
const LOCAL_CHAIN_DIR = join(ROOT, "packages", "local-chain");

type Workspace = {
  dir: string;
  name: string;
  exports: Record<string, string>;
  dependencies: Record<string, string>;
  devDependencies: Record<string, string>;
};

function workspaces(): Workspace[] {
  const found: Workspace[] = [];
  for (const group of ["packages", "services", "apps"]) {
    for (const entry of readdirSync(join(ROOT, group))) {
      const dir = join(ROOT, group, entry);
      const manifest = join(dir, "package.json");
      if (!existsSync(manifest)) continue;
      const json = JSON.parse(readFileSync(manifest, "utf8"));
      const exports = typeof json.exports === "string" ? { ".": json.exports } : (json.exports ?? {});
      found.push({
        dir,
        name: json.name,
        exports,
        dependencies: json.dependencies ?? {},
        devDependencies: json.devDependencies ?? {},
      });
    }
  }
  return found;
}

function sourceFiles(dir: string): string[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir).flatMap((entry) => {
    if (entry === "node_modules" || entry === ".data") return [];
    const path = join(dir, entry);
    if (statSync(path).isDirectory()) return sourceFiles(path);
    return /\.(ts|mts|js|mjs)$/.test(entry) ? [path] : [];
  });
}

const IMPORT =
  /(?:^|[\s;])(?:import|export)\s[^;]*?\sfrom\s*["']([^"']+)["']|(?:^|[\s;])import\s*["']([^"']+)["']|\bimport\s*\(\s*["']([^"']+)["']\s*\)|\brequire\s*\(\s*["']([^"']+)["']\s*\)/g;

/** A file's text, or undefined for anything but a file. */
const readSource = (path: string) =>
  existsSync(path) && statSync(path).isFile() ? readFileSync(path, "utf8") : undefined;

/** Every module specifier a source file imports, re-exports, dynamically imports or requires. */
function specifiersOf(source: string): string[] {
  return [...source.matchAll(IMPORT)].map((match) => match[1] ?? match[2] ?? match[3] ?? match[4] ?? "");
}

/** Where a specifier leads inside the repository (a file), or undefined for npm packages and builtins. */
function resolveSpecifier(from: string, specifier: string, all: Workspace[]): string | undefined {
  let target: string | undefined;
  if (specifier.startsWith(".")) target = resolve(dirname(from), specifier);
  else {
    const workspace = all.find((w) => specifier === w.name || specifier.startsWith(`${w.name}/`));
    if (!workspace) return undefined;
    const entry = workspace.exports[`.${specifier.slice(workspace.name.length)}`];
    target = entry ? join(workspace.dir, entry) : join(workspace.dir, specifier.slice(workspace.name.length));
  }
  for (const candidate of [target, `${target}.ts`, join(target, "index.ts")]) {
    if (existsSync(candidate) && statSync(candidate).isFile()) return candidate;
  }
  return target;
}

const isLocalChain = (specifier: string) =>
  specifier === LOCAL_CHAIN || specifier.startsWith(`${LOCAL_CHAIN}/`);

/**
 * The import path from `file` to the local chain, or undefined when it cannot reach it. Follows
 * relative imports and workspace packages' exports, never npm packages.
 */
function pathToLocalChain(
  file: string,
  all: Workspace[],
  read: (path: string) => string | undefined = readSource,
  seen = new Set<string>(),
): string[] | undefined {
  if (seen.has(file)) return undefined;
  seen.add(file);
  if (file.startsWith(LOCAL_CHAIN_DIR)) return [file];
  const source = read(file);
  if (source === undefined) return undefined;
  for (const specifier of specifiersOf(source)) {
    if (isLocalChain(specifier)) return [file, specifier];
    const next = resolveSpecifier(file, specifier, all);
    if (!next) continue;
    const rest = pathToLocalChain(next, all, read, seen);
    if (rest) return [file, ...rest];
  }
  return undefined;
}

/** Production workspaces: every package and service except the local chain itself (not the apps). */
const production = (all: Workspace[]) =>
  all.filter(
    (w) =>
      w.dir !== LOCAL_CHAIN_DIR && /[\\/](packages|services)[\\/][^\\/]+$/.test(w.dir.replace(/[\\/]$/, "")),
  );

describe("production code cannot reach the local chain", () => {
  const all = workspaces();

  it("the scan sees the workspaces and their production sources", () => {
    const names = all.map((w) => w.name);
    expect(names).toEqual(expect.arrayContaining(["@app/payments", "@app/fortune", LOCAL_CHAIN]));
    expect(production(all).flatMap((w) => sourceFiles(join(w.dir, "src"))).length).toBeGreaterThan(50);
  });

  it("no file under services/<name>/src or packages/<name>/src imports it, directly or through another file", () => {
    const offences: string[] = [];
    for (const workspace of production(all)) {
      for (const file of sourceFiles(join(workspace.dir, "src"))) {
        const path = pathToLocalChain(file, all);
        if (path)
          offences.push(path.map((step) => (step === LOCAL_CHAIN ? step : relative(ROOT, step))).join(" → "));
      }
    }
    expect(offences).toEqual([]);
  });

  it("no package or service lists it in its dependencies (devDependencies are for tests and harnesses)", () => {
    const offences = production(all)
      .filter((w) => LOCAL_CHAIN in w.dependencies)
      .map((w) => w.name);
    expect(offences).toEqual([]);
  });

  it("every workspace that imports it declares it", () => {
    const undeclared = all
      .filter((w) => w.dir !== LOCAL_CHAIN_DIR)
      .filter((w) =>
        sourceFiles(w.dir).some((file) => specifiersOf(readFileSync(file, "utf8")).some(isLocalChain)),
      )
      .filter((w) => !(LOCAL_CHAIN in w.dependencies) && !(LOCAL_CHAIN in w.devDependencies))
      .map((w) => w.name);
    expect(undeclared).toEqual([]);
  });

  it("the scan catches an import, a re-export, a dynamic import and a path through another workspace", () => {
    expect(specifiersOf(`import { startAnvil } from "@app/local-chain";`)).toEqual([LOCAL_CHAIN]);
    expect(specifiersOf(`import type {\n  LocalChain,\n} from "@app/local-chain";`)).toEqual([LOCAL_CHAIN]);
    expect(specifiersOf(`export * from "@app/local-chain";`)).toEqual([LOCAL_CHAIN]);
    expect(specifiersOf(`const m = await import("@app/local-chain");`)).toEqual([LOCAL_CHAIN]);
    // A production file that is not on disk: only its text is given, the rest of the path is real files.
    const probe = join(ROOT, "services", "fortune", "src", "boundary-probe.ts");
    const read = (path: string) =>
      path === probe ? `import { localChainRails } from "@app/fortune/local";` : readSource(path);
    const path = pathToLocalChain(probe, all, read)?.map((step) =>
      step === LOCAL_CHAIN ? step : relative(ROOT, step),
    );
    expect(path?.[0]).toBe(join("services", "fortune", "src", "boundary-probe.ts"));
    expect(path).toContain(join("services", "fortune", "local", "chain.ts"));
    expect(path?.at(-1)).toBe(LOCAL_CHAIN);
    expect(pathToLocalChain(join(ROOT, "services", "fortune", "src", "service.ts"), all)).toBeUndefined();
  });
});

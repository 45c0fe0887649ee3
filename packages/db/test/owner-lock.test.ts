import { spawn } from "node:child_process";
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { createServer, type Server } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { acquireOwnerLock, DataFolderInUseError, readOwner } from "../src/embedded/owner-lock.ts";

let dir: string;
let lockPath: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), "owner-lock-"));
  lockPath = join(dir, "pglite.lock");
  return () => rm(dir, { recursive: true, force: true });
});

const take = (holder: string) =>
  acquireOwnerLock(lockPath, { holder, serves: true, folder: join(dir, "pglite") });

/** A process that exits at once: its pid is free afterwards (dead, and not reused this soon). */
async function deadPid(): Promise<number> {
  const child = spawn(process.execPath, ["-e", ""], { stdio: "ignore" });
  await new Promise((resolve) => child.once("exit", resolve));
  return child.pid as number;
}

/** A Unix socket that takes connections, and the PostgreSQL URL naming it (closed after the test). */
const servers: Server[] = [];
async function listeningEndpoint(): Promise<string> {
  const server = createServer((socket) => socket.destroy());
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(join(dir, ".s.PGSQL.5432"), resolve));
  return `postgres://postgres@localhost/postgres?host=${encodeURIComponent(dir)}`;
}
afterEach(async () => {
  await Promise.all(servers.splice(0).map((server) => new Promise((resolve) => server.close(resolve))));
});

describe("the owner lock of an embedded data folder", () => {
  afterEach(() => undefined);

  it("is refused to a second taker while held, naming the holder and where to connect", async () => {
    const lock = await take("npm start");
    const endpoint = await listeningEndpoint();
    await lock.publish(endpoint);
    const refusal = await take("npm start").catch((error: unknown) => error);
    expect(refusal).toBeInstanceOf(DataFolderInUseError);
    const message = (refusal as Error).message;
    expect(message).toContain(`in use by npm start (pid ${process.pid}`);
    expect(message).toContain(`connect through it: ${endpoint}`);
    await lock.release();
    const again = await take("npm start");
    await again.release();
  });

  it("records the holder, its pid and start time, and the endpoint once published", async () => {
    const lock = await take("npm start");
    expect((await readOwner(lockPath))?.endpoint).toBeUndefined();
    await lock.publish("postgres://x");
    const owner = await readOwner(lockPath);
    expect(owner).toMatchObject({
      pid: process.pid,
      holder: "npm start",
      serves: true,
      endpoint: "postgres://x",
    });
    if (process.platform === "linux") expect(owner?.startTicks).toBeGreaterThan(0);
    await lock.release();
    expect(await readOwner(lockPath)).toBeUndefined();
  });

  it("takes over a lock left by a process that is gone", async () => {
    const pid = await deadPid();
    await writeFile(lockPath, JSON.stringify({ pid, holder: "npm start", since: "earlier", serves: true }));
    expect(await readOwner(lockPath)).toBeUndefined();
    const lock = await take("npm run publisher");
    expect((await readOwner(lockPath))?.holder).toBe("npm run publisher");
    await lock.release();
  });

  it.runIf(process.platform === "linux")(
    "takes over a lock whose pid now belongs to another process (a reused pid)",
    async () => {
      await writeFile(
        lockPath,
        JSON.stringify({
          pid: process.pid,
          startTicks: 1,
          holder: "npm start",
          since: "earlier",
          serves: true,
        }),
      );
      const lock = await take("npm start");
      expect(JSON.parse(await readFile(lockPath, "utf8")).startTicks).not.toBe(1);
      await lock.release();
    },
  );

  it("holds for an owner whose pid this process cannot see while its socket answers (another pid namespace)", async () => {
    const pid = await deadPid();
    const endpoint = await listeningEndpoint();
    await writeFile(
      lockPath,
      JSON.stringify({ pid, holder: "npm start", since: "earlier", serves: true, endpoint }),
    );
    await expect(take("npm run publisher")).rejects.toBeInstanceOf(DataFolderInUseError);
  });

  it("takes over from a serving owner whose socket no longer answers, though its pid is alive (reused)", async () => {
    const endpoint = `postgres://postgres@localhost/postgres?host=${encodeURIComponent(dir)}`;
    await writeFile(
      lockPath,
      JSON.stringify({ pid: process.pid, holder: "npm start", since: "earlier", serves: true, endpoint }),
    );
    const lock = await take("npm start");
    await lock.release();
  });

  it("takes over a lock naming no real process (pid 0 or -1), and prints no control characters", async () => {
    for (const pid of [0, -1]) {
      await writeFile(lockPath, JSON.stringify({ pid, holder: "x", since: "earlier", serves: false }));
      const lock = await take("npm start");
      await lock.release();
    }
    const endpoint = await listeningEndpoint();
    await writeFile(
      lockPath,
      JSON.stringify({ pid: 1, holder: "evil\n\u001b[31mred", since: "now", serves: true, endpoint }),
    );
    const refusal = (await take("npm start").catch((error: unknown) => error)) as Error;
    expect(refusal.message).toContain("evil??[31mred");
  });

  it("takes over an unreadable lock file", async () => {
    await writeFile(lockPath, "{ half-writ");
    const lock = await take("npm start");
    await lock.release();
  });

  it("lets exactly one of many processes take a stale lock at once", { timeout: 60_000 }, async () => {
    const pid = await deadPid();
    await writeFile(lockPath, JSON.stringify({ pid, holder: "gone", since: "earlier", serves: false }));
    const script = `
      import { acquireOwnerLock } from ${JSON.stringify(new URL("../src/embedded/owner-lock.ts", import.meta.url).href)};
      try {
        await acquireOwnerLock(${JSON.stringify(lockPath)}, { holder: "racer", serves: false, folder: "f" });
        process.stdout.write("won");
        setTimeout(() => {}, 3000);
      } catch (error) {
        process.stdout.write(error.name === "DataFolderInUseError" ? "refused" : "error " + error.message);
      }`;
    const racers = Array.from({ length: 6 }, () =>
      spawn(process.execPath, ["--import", "tsx", "--input-type=module", "-e", script], {
        stdio: ["ignore", "pipe", "inherit"],
      }),
    );
    const outcomes = await Promise.all(
      racers.map(
        (child) =>
          new Promise<string>((resolve) => {
            let out = "";
            child.stdout?.on("data", (chunk) => {
              out += chunk;
              if (out === "won" || out === "refused" || out.startsWith("error")) resolve(out);
            });
            child.once("exit", () => resolve(out));
          }),
      ),
    );
    for (const child of racers) child.kill("SIGKILL");
    expect(outcomes.filter((outcome) => outcome === "won")).toHaveLength(1);
    expect(outcomes.filter((outcome) => outcome === "refused")).toHaveLength(5);
  });

  it("is recognised as stale once its holder is killed", { timeout: 30_000 }, async () => {
    const script = `
      import { acquireOwnerLock } from ${JSON.stringify(new URL("../src/embedded/owner-lock.ts", import.meta.url).href)};
      await acquireOwnerLock(${JSON.stringify(lockPath)}, { holder: "doomed", serves: false, folder: "f" });
      process.stdout.write("held");
      setInterval(() => {}, 1000);`;
    const child = spawn(process.execPath, ["--import", "tsx", "--input-type=module", "-e", script], {
      stdio: ["ignore", "pipe", "inherit"],
    });
    await new Promise<void>((resolve) => child.stdout?.once("data", () => resolve()));
    expect((await readOwner(lockPath))?.holder).toBe("doomed");
    await expect(take("npm start")).rejects.toBeInstanceOf(DataFolderInUseError);
    child.kill("SIGKILL");
    await new Promise((resolve) => child.once("exit", resolve));
    const lock = await take("npm start");
    await lock.release();
  });
});

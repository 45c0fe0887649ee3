import { readFileSync } from "node:fs";

/** Clock ticks per second of `/proc/<pid>/stat` times (USER_HZ; 100 on Linux). */
const TICKS = 100;

/** CPU seconds (user + system, all threads) a process has used so far; undefined off Linux or once gone. */
function cpuSeconds(pid: number): number | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    return (Number(fields[11]) + Number(fields[12])) / TICKS;
  } catch {
    return undefined;
  }
}

/** The direct children of a process named `name` (Linux `/proc`); empty when unknown. */
export function childPidsNamed(pid: number, name: string): number[] {
  try {
    return readFileSync(`/proc/${pid}/task/${pid}/children`, "utf8")
      .trim()
      .split(/\s+/)
      .filter(Boolean)
      .map(Number)
      .filter((child) => readFileSync(`/proc/${child}/comm`, "utf8").trim() === name);
  } catch {
    return [];
  }
}

/** Busy share of one core per process while `task` ran (1 = one core busy; undefined = unknown). */
export type CpuShares = Record<string, number | undefined>;

/**
 * Runs `task` and reports how busy each named process (and this one, as `loader`) was
 * meanwhile, from outside: `/proc` for the others, `process.cpuUsage()` for this one.
 */
export async function withCpu<T>(
  pids: Record<string, number | undefined>,
  task: () => Promise<T>,
): Promise<{ result: T; cpu: CpuShares }> {
  const before = Object.entries(pids).map(([name, pid]) => [name, pid, pid && cpuSeconds(pid)] as const);
  const self = process.cpuUsage();
  const started = performance.now();
  const result = await task();
  const wall = (performance.now() - started) / 1000;
  const own = process.cpuUsage(self);
  const cpu: CpuShares = { loader: (own.user + own.system) / 1e6 / wall };
  for (const [name, pid, start] of before) {
    const end = pid ? cpuSeconds(pid) : undefined;
    cpu[name] = start === undefined || end === undefined ? undefined : (end - start) / wall;
  }
  return { result, cpu };
}

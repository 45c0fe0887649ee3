import type { RunOutcome } from "../store/runs.ts";

/** The first upstream status that counts as the upstream's error (its 4xx and 5xx). */
export const UPSTREAM_ERROR_FROM = 400;

/**
 * A run's status as the history shows it and filters by: the usage record's outcome, with a run
 * the upstream answered split by the upstream's status (below 400 or not). Declared once: the
 * history's filter, its schema and the README's table all come from here.
 */
export const RUN_STATUSES = {
  running: {
    outcome: "running",
    meaning:
      "Charged, its upstream call not finished yet (priced runs only: a free run is recorded once it ends)",
  },
  succeeded: { outcome: "completed", upstreamOk: true, meaning: "The upstream answered below 400" },
  upstream_error: {
    outcome: "completed",
    upstreamOk: false,
    meaning: "The upstream answered 400 or above (passed through; a 5xx is refunded)",
  },
  upstream_unavailable: {
    outcome: "upstream_unavailable",
    meaning: "The upstream could not be reached (502 UPSTREAM_UNAVAILABLE; nothing charged)",
  },
  upstream_timeout: {
    outcome: "upstream_timeout",
    meaning: "The upstream did not answer in time (504 UPSTREAM_TIMEOUT; nothing charged)",
  },
  upstream_response_too_large: {
    outcome: "upstream_response_too_large",
    meaning:
      "The upstream answered more than the gateway accepts (502 UPSTREAM_RESPONSE_TOO_LARGE; nothing charged)",
  },
  failed: {
    outcome: "failed",
    meaning: "The gateway failed on its side once the run began (500); a priced run is refunded",
  },
} as const satisfies Record<
  string,
  { outcome: RunOutcome | "running"; upstreamOk?: boolean; meaning: string }
>;

export type RunStatus = keyof typeof RUN_STATUSES;

export const RUN_STATUS_NAMES = Object.keys(RUN_STATUSES) as [RunStatus, ...RunStatus[]];

/** What a status selects among usage records: an outcome, and for an upstream's answer, which side of 400. */
export type RunStatusFilter = { outcome: RunOutcome | "running"; upstreamOk?: boolean };

export function statusFilter(status: RunStatus): RunStatusFilter {
  const entry: { outcome: RunOutcome | "running"; upstreamOk?: boolean } = RUN_STATUSES[status];
  return entry.upstreamOk === undefined
    ? { outcome: entry.outcome }
    : { outcome: entry.outcome, upstreamOk: entry.upstreamOk };
}

/** The status of a usage record (a `completed` run without an upstream status counts as an error). */
export function runStatusOf(outcome: RunOutcome | "running", upstreamStatus: number | null): RunStatus {
  return statusOfOutcome(outcome, upstreamStatus !== null && upstreamStatus < UPSTREAM_ERROR_FROM);
}

/** The status of an outcome, given whether the upstream's answer (if any) was below 400. */
export function statusOfOutcome(outcome: RunOutcome | "running", upstreamOk: boolean): RunStatus {
  for (const name of RUN_STATUS_NAMES) {
    const filter = statusFilter(name);
    if (filter.outcome === outcome && (filter.upstreamOk === undefined || filter.upstreamOk === upstreamOk)) {
      return name;
    }
  }
  return "failed";
}

/** Whether a run counts as an error in usage: it ended, and not with an upstream answer below 400. */
export function isErrorStatus(status: RunStatus): boolean {
  return status !== "running" && status !== "succeeded";
}

import { newId, type ValidationIssue } from "@app/core";
import { type UsdAmount, usd } from "../domain/money.ts";
import { OutputJson, outputJson } from "../domain/output.ts";
import { upstreamRetryAfter } from "../domain/retry-after.ts";
import { prepareToolInput, upstreamUrl } from "../domain/tool-input.ts";
import { GatewayError } from "../errors.ts";
import type { RegisteredTool } from "../registry/types.ts";
import type { Caller } from "../store/accounts.ts";
import { balanceOf, type NewRun, type RunOutcome } from "../store/runs.ts";
import { UpstreamFailure, type UpstreamFailureKind } from "../upstream/client.ts";
import { chargeRefusal } from "./charge-refusal.ts";
import type { GatewayDeps } from "./deps.ts";
import { findTool } from "./find-tool.ts";
import { takeRunToken } from "./run-rate-limit.ts";

/** A run as the caller names it (the body of `POST /v1/run`, the `run` MCP tool's arguments). */
export type RunRequest = { provider: string; endpoint: string; method: string; input?: unknown };

/** What a run answers whenever the upstream answered, whatever its status. */
export type RunEnvelope = {
  runId: string;
  provider: string;
  endpoint: string;
  method: string;
  upstream: { status: number; retryAfter?: string };
  output: unknown;
  cost: UsdAmount;
  balance: UsdAmount;
  durationMs: number;
};

/** Upstream keys are sent as a header value: visible ASCII only, of a sane length. */
const UPSTREAM_KEY = /^[\x21-\x7e]{1,512}$/;

const USER_AGENT = "agent-platform-gateway/1.0";

const FAILURES: Record<UpstreamFailureKind, { outcome: RunOutcome; error: () => GatewayError }> = {
  unavailable: {
    outcome: "upstream_unavailable",
    error: () =>
      new GatewayError(
        "UPSTREAM_UNAVAILABLE",
        "The tool's upstream could not be reached; nothing was charged.",
      ),
  },
  timeout: {
    outcome: "upstream_timeout",
    error: () =>
      new GatewayError(
        "UPSTREAM_TIMEOUT",
        "The tool's upstream did not answer in time; nothing was charged.",
      ),
  },
  too_large: {
    outcome: "upstream_response_too_large",
    error: () =>
      new GatewayError(
        "UPSTREAM_RESPONSE_TOO_LARGE",
        "The tool's upstream answered more than the gateway accepts; nothing was charged.",
      ),
  },
};

function invalidInput(issues: ValidationIssue[]): GatewayError {
  return new GatewayError("INVALID_INPUT", "The run's input does not match the tool's schema.", { issues });
}

/** The upstream key to send, if the tool takes one: required then, checked, never echoed. */
function upstreamKeyFor(tool: RegisteredTool, upstreamKey: string | undefined): string | undefined {
  if (tool.provider.upstreamKeyHeader === null) return undefined;
  if (upstreamKey === undefined || upstreamKey === "") {
    throw new GatewayError(
      "UPSTREAM_KEY_REQUIRED",
      `This tool needs your ${tool.provider.name} key: send it in the X-Upstream-Key header (or as upstreamKey).`,
    );
  }
  if (!UPSTREAM_KEY.test(upstreamKey)) {
    throw invalidInput([{ path: "upstreamKey", message: "must be 1 to 512 visible ASCII characters" }]);
  }
  return upstreamKey;
}

/** A run's answer: the envelope, and the same envelope as JSON text with the output spliced in. */
export type RunAnswer = { envelope: RunEnvelope; json: string };

/**
 * How far a run got, for whoever must decide what its failure means (idempotency): `charged` is
 * set just before a priced run's charge is attempted and stays set unless the run ended refunded
 * with a gateway error (502/504). A failure while it is set happened after the account may have
 * been charged.
 */
export type RunProgress = { charged: boolean };

/** How a run is carried out besides its request: who counted it, and what its caller must know or do. */
export type RunOptions = {
  /**
   * The request was already counted against its key's rate limit (`POST /v1/run`'s key guard
   * counts every request): the run takes no token of its own. Otherwise (MCP's `run`) it takes
   * one once its tool and input are found valid.
   */
  counted?: boolean;
  /** The run's id, when its caller named it first (an idempotent run's key points at it); a new one otherwise. */
  runId?: string;
  /** Set as the run goes ({@link RunProgress}). */
  progress?: RunProgress;
  /**
   * Called just before a priced run is charged (never for a free run): a throw stops the run with
   * nothing charged. An idempotent run pins its key here. A run given one is charged by the
   * database's own statement, its run row written before its upstream call, rather than from a hold.
   */
  beforeCharge?: () => Promise<void>;
  /** Recorded with the run for its history: the `Idempotency-Key` it was sent with, its request's id. */
  idempotencyKey?: string;
  requestId?: string;
};

/**
 * Runs one registered tool for a caller: finds it among those its key may use (404), validates its
 * input (400), takes a token from the key's bucket unless its request was counted already (429),
 * charges its price without ever going below zero or past the key's spend caps (402), calls only
 * the registered upstream with the caller's upstream key in the upstream's own header, records the
 * run, and answers the envelope. An unreachable, slow or oversize upstream is a 502/504 and the
 * price goes back. The upstream key is used for this one call: never stored, logged or returned.
 *
 * A priced run is charged from its key's hold in this instance (`HeldSpend`: a statement only
 * when the hold runs short) and its rows are written just after it answers, with its hold's next
 * settle. A priced run whose caller must pin something durable first (`beforeCharge`: an
 * idempotent run) is charged and recorded by the database before its upstream call and finished
 * before it answers (one statement each). A free run touches the database only for what it must
 * decide (the rate limit's lease, when it needs a new one): its usage record and ledger row of 0
 * are written just after it answers, in a batch (`UsageWriter`), and its envelope shows the
 * balance this instance last saw (`BalanceView`).
 *
 * A priced run that fails on the gateway's side after its charge (anything but a 402, 502 or 504:
 * its finish could not be written, say) is finished as `failed` and refunded before the error goes
 * on; `progress.charged` tells the caller the failure came after the charge. `beforeCharge` runs
 * just before the charge; what it throws goes on with nothing charged.
 */
export async function runTool(
  deps: GatewayDeps,
  caller: Caller,
  request: RunRequest,
  upstreamKey: string | undefined,
  options: RunOptions = {},
): Promise<RunAnswer> {
  const progress = options.progress ?? { charged: false };
  const tool = findTool(deps.registry, request, caller);
  const prepared = prepareToolInput(tool, request.input);
  if (!prepared.ok) throw invalidInput(prepared.issues);
  const key = upstreamKeyFor(tool, upstreamKey);
  const url = upstreamUrl(tool.provider.baseUrl, prepared.call);

  if (!options.counted) await takeRunToken(deps.rateLimiter, caller);

  const run: NewRun = {
    id: options.runId ?? newId("run"),
    accountId: caller.accountId,
    keyId: caller.keyId,
    provider: tool.provider.id,
    endpoint: tool.endpoint,
    method: tool.method,
    costMicro: tool.priceMicro,
    idempotencyKey: options.idempotencyKey,
    requestId: options.requestId,
    keepOutput: caller.keepRunOutput === true,
  };
  const startedAt = deps.clock.now();
  if (run.costMicro === 0n) return callAndFinish(deps, tool, run, key, url, freeFinish(deps, run, startedAt));
  if (!options.beforeCharge) return runFromHold(deps, tool, run, key, url, startedAt);
  await options.beforeCharge();
  progress.charged = true;
  try {
    let started = await deps.runs.start(run);
    // What this instance holds of the account for its other runs is given back if this run needs it.
    if (started.kind !== "started" && (await deps.held.giveBackUnused(run.accountId))) {
      started = await deps.runs.start(run);
    }
    if (started.kind !== "started") throw chargeRefusal(started, tool.priceMicro);
    observeBalance(deps, run.accountId, started.balanceMicro);
    return await callAndFinish(deps, tool, run, key, url, chargedFinish(deps, run, started.balanceMicro));
  } catch (error) {
    // A 402 (nothing charged) or a 502/504 (finished and refunded): the gateway's own answers.
    if (error instanceof GatewayError) {
      progress.charged = false;
      throw error;
    }
    await refundFailed(deps, run, startedAt);
    throw error;
  }
}

/**
 * A charged run that failed on the gateway's side (its finish could not be written, say): it is
 * finished as `failed` and refunded, unless its finish did reach the database after all (the
 * finish only moves a run that is still `running`). If even that fails, the run stays `running`
 * with its charge, an error log names it, and the abandoned-run sweeper refunds it later.
 */
async function refundFailed(deps: GatewayDeps, run: NewRun, startedAt: Date): Promise<void> {
  const durationMs = Math.max(0, deps.clock.now().getTime() - startedAt.getTime());
  try {
    const balance = await deps.runs.finish(run, {
      outcome: "failed",
      upstreamStatus: null,
      durationMs,
      refund: true,
    });
    observeBalance(deps, run.accountId, balance);
  } catch (error) {
    deps.logger.error(
      { err: error, runId: run.id, accountId: run.accountId },
      "a charged run failed and could not be refunded yet: the abandoned-run sweeper will",
    );
  }
}

/**
 * A priced run without an `Idempotency-Key`: charged from its key's hold in this instance
 * (`HeldSpend`: no statement on its path unless the hold runs short), called, and finished into
 * the hold's next settle. A failure after the charge (anything but the gateway's own 402, 502 or
 * 504) finishes it `failed` and refunded before the error goes on.
 */
async function runFromHold(
  deps: GatewayDeps,
  tool: RegisteredTool,
  run: NewRun,
  key: string | undefined,
  url: URL,
  startedAt: Date,
): Promise<RunAnswer> {
  const started = await deps.held.charge(run);
  if (started.kind !== "started") throw chargeRefusal(started, tool.priceMicro);
  const { charge } = started;
  const finish: Finish = async (outcome, upstreamStatus, durationMs, refund, output) => {
    const balance = deps.held.finish(charge, {
      id: run.id,
      provider: run.provider,
      endpoint: run.endpoint,
      method: run.method,
      costMicro: run.costMicro,
      outcome,
      upstreamStatus,
      durationMs,
      startedAt,
      finishedAt: deps.clock.now(),
      refunded: refund,
      requestId: run.requestId,
      output,
    });
    return refund ? balance : started.balanceMicro;
  };
  try {
    return await callAndFinish(deps, tool, run, key, url, finish);
  } catch (error) {
    if (!(error instanceof GatewayError)) {
      const durationMs = Math.max(0, deps.clock.now().getTime() - startedAt.getTime());
      await finish("failed", null, durationMs, true);
    }
    throw error;
  }
}

/**
 * Finishes a run: records how it ended (refunding its price with `refund`) and returns the balance
 * its envelope shows.
 */
type Finish = (
  outcome: RunOutcome,
  upstreamStatus: number | null,
  durationMs: number,
  refund: boolean,
  output?: string,
) => Promise<bigint>;

/**
 * A free run's finish: its record goes to the next batch of the `UsageWriter`; its envelope shows
 * the balance this instance last saw, less what its priced runs took and have not settled yet.
 */
function freeFinish(deps: GatewayDeps, run: NewRun, startedAt: Date): Finish {
  return async (outcome, upstreamStatus, durationMs, _refund, output) => {
    deps.usage.record({
      ...run,
      outcome,
      upstreamStatus,
      durationMs,
      startedAt,
      finishedAt: deps.clock.now(),
      output,
    });
    const settled = deps.balances.get(run.accountId) ?? (await balanceOf(deps.db, run.accountId));
    return settled - deps.held.pendingOf(run.accountId);
  };
}

/**
 * A run charged by the database's statement: its finish is a statement too. It answers
 * `balanceAfterCharge`, what its own debit left, rather than the balance at its finish, which
 * concurrent runs of the account may have moved since; a refunded one answers what its own refund
 * left.
 */
function chargedFinish(deps: GatewayDeps, run: NewRun, balanceAfterCharge: bigint): Finish {
  return async (outcome, upstreamStatus, durationMs, refund, output) => {
    const balance = await deps.runs.finish(run, { outcome, upstreamStatus, durationMs, refund, output });
    observeBalance(deps, run.accountId, balance);
    return refund ? balance : balanceAfterCharge;
  };
}

/**
 * A settled balance read by a statement of this run: for the free runs' view and for the runs
 * charged from holds here, which show it less what they took and have not settled.
 */
function observeBalance(deps: GatewayDeps, accountId: string, balanceMicro: bigint): void {
  deps.balances.observe(accountId, balanceMicro);
  deps.held.observe(accountId, balanceMicro);
}

/** Calls the upstream of a started run, finishes the run and builds its envelope. */
async function callAndFinish(
  deps: GatewayDeps,
  tool: RegisteredTool,
  run: NewRun,
  key: string | undefined,
  url: URL,
  finish: Finish,
): Promise<RunAnswer> {
  const free = run.costMicro === 0n;

  const headers: Record<string, string> = { accept: "application/json", "user-agent": USER_AGENT };
  if (key !== undefined && tool.provider.upstreamKeyHeader) headers[tool.provider.upstreamKeyHeader] = key;
  const callStartedAt = performance.now();
  const elapsed = () => Math.round(performance.now() - callStartedAt);
  let response: Awaited<ReturnType<typeof deps.upstream.send>>;
  try {
    response = await deps.upstream.send({ url, method: tool.method, headers });
  } catch (error) {
    if (!(error instanceof UpstreamFailure)) throw error;
    const failure = FAILURES[error.kind];
    const durationMs = elapsed();
    await finish(failure.outcome, null, durationMs, true);
    deps.logger.warn(
      {
        runId: run.id,
        provider: run.provider,
        endpoint: run.endpoint,
        failure: error.kind,
        detail: error.detail,
        durationMs,
      },
      "upstream call failed",
    );
    throw failure.error();
  }
  const durationMs = elapsed();
  const refund = response.status >= 500;
  // What can fail is done before the finish, so a failure finds the run still `running`: a priced
  // one is then finished as `failed` and refunded (`runTool`), a free one recorded as failed.
  let output: OutputJson;
  let retryAfter: string | undefined;
  try {
    output = outputJson(response.body, response.contentType, key);
    retryAfter = upstreamRetryAfter(response.retryAfter, key);
  } catch (error) {
    if (free) await finish("failed", response.status, durationMs, true);
    throw error;
  }
  const kept = run.keepOutput ? output.text : undefined;
  const balance = await finish("completed", response.status, durationMs, refund, kept);
  const envelope: RunEnvelope = {
    runId: run.id,
    provider: run.provider,
    endpoint: run.endpoint,
    method: run.method,
    upstream: retryAfter ? { status: response.status, retryAfter } : { status: response.status },
    output,
    cost: usd(refund ? 0n : run.costMicro),
    balance: usd(balance),
    durationMs,
  };
  return { envelope, json: envelopeJson(envelope) };
}

/**
 * The envelope as JSON text, field by field in the envelope's order, its output spliced in as
 * the checked JSON text it is ({@link OutputJson}) rather than serialised again.
 */
export function envelopeJson(envelope: RunEnvelope): string {
  const output =
    envelope.output instanceof OutputJson ? envelope.output.text : JSON.stringify(envelope.output);
  return (
    `{"runId":${JSON.stringify(envelope.runId)},"provider":${JSON.stringify(envelope.provider)},` +
    `"endpoint":${JSON.stringify(envelope.endpoint)},"method":${JSON.stringify(envelope.method)},` +
    `"upstream":${JSON.stringify(envelope.upstream)},"output":${output ?? "null"},` +
    `"cost":${JSON.stringify(envelope.cost)},"balance":${JSON.stringify(envelope.balance)},` +
    `"durationMs":${JSON.stringify(envelope.durationMs)}}`
  );
}

import { ApiError, type ErrorBody } from "@app/core";
import type { Platform, PostContent } from "../contracts/post.ts";
import { toPostContent } from "../domain/post-content.ts";
import type { FittedPreview } from "../media/preflight/media-inspect.ts";
import { MediaRefusal, type PreflightTarget } from "../media/preflight/media-preflight.ts";
import { type TextTransform, textTransformsFor } from "../publishing/derived-texts.ts";
import { findAccountConnections } from "../store/account-connections.ts";
import type { RouteDeps } from "./deps.ts";
import {
  CHECK_LIMITS,
  type CheckLimits,
  fieldOf,
  futureInstant,
  invalidPayload,
  judgeConnection,
  mediaRefusalError,
  resolveTargetIds,
  withinCheckDeadline,
} from "./post-checks.ts";
import type { PostPayloadBody } from "./post-payload.ts";
import { creatorsOf } from "./prepare-post.ts";

/** What a target would be sent other than as given: an image made to fit, or a text derived or cleaned. */
export type Transform = ({ kind: "image_fitted" } & FittedPreview) | TextTransform;

/** The dry run's answer for one target: refused (each refusal as a create answers it) or taken, and how. */
export type TargetReport = {
  connectionId: string;
  /** Null when the connection is not the account's. */
  platform: Platform | null;
  /**
   * Every check of this target ran and none refused it. False with no `errors` when a refusal of
   * the post as a whole (`PostValidation.errors`) kept its checks from running.
   */
  accepted: boolean;
  errors: ErrorBody[];
  transforms: Transform[];
};

/** The dry run's answer: whether a create of this body would be taken, and why not, per target. */
export type PostValidation = {
  valid: boolean;
  /** What refuses the post as a whole (not one target): the payload, its times, its media. */
  errors: ErrorBody[];
  targets: TargetReport[];
};

/** The body the dry run takes: a publish, schedule or queue payload. */
export type ValidateBody = PostPayloadBody & { scheduledFor?: string };

/**
 * A target being judged: while `preflight` is set its checks go on; the first refusal found is
 * its answer (as a create would stop there); `judged` once every check of it has run.
 */
type Judged = {
  connectionId: string;
  platform: Platform | null;
  refusal?: ApiError;
  preflight?: PreflightTarget;
  judged: boolean;
  transforms: Transform[];
};

/** The targets whose checks go on, each with what the preflight takes of it. */
const stillOpen = (judged: readonly Judged[]) =>
  judged.flatMap((target) => (target.preflight ? [{ target, preflight: target.preflight }] : []));

/** The refusal `check` throws as an ApiError, or undefined when it passes; anything else is thrown. */
function refusalOf(check: () => unknown): ApiError | undefined {
  try {
    check();
    return undefined;
  } catch (error) {
    if (error instanceof ApiError) return error;
    throw error;
  }
}

/** TikTok's `creator_info` for the targets still taken: a refusal each, or the creator's limits. */
async function judgeCreators(deps: RouteDeps, judged: Judged[], content: PostContent, limits: CheckLimits) {
  const open = stillOpen(judged);
  const settled = await creatorsOf(
    deps,
    open.map(({ preflight }) => preflight),
    content,
    limits,
  );
  open.forEach(({ target, preflight }, index) => {
    const outcome = settled[index];
    if (outcome?.status === "rejected") {
      if (!(outcome.reason instanceof ApiError)) throw outcome.reason;
      target.refusal = outcome.reason;
      target.preflight = undefined;
      target.judged = true;
    } else if (outcome?.value) {
      target.preflight = { ...preflight, creator: outcome.value };
    }
  });
}

/**
 * The media judged for the targets still taken (`MediaPreflight.inspect`): each target's refusal
 * or its images made to fit; a refusal of the post as a whole goes to `errors`.
 */
async function judgeMedia(
  deps: RouteDeps,
  accountId: string,
  body: ValidateBody,
  content: PostContent,
  judged: Judged[],
  errors: ApiError[],
  signal: AbortSignal,
): Promise<void> {
  const open = stillOpen(judged);
  try {
    const inspection = await deps.mediaPreflight.inspect({
      content,
      targets: open.map(({ preflight }) => preflight),
      fieldOf: fieldOf(body),
      signal,
      accountId,
    });
    open.forEach(({ target }, index) => {
      const verdict = inspection.targets[index];
      target.judged = true;
      if (verdict?.refusal) {
        target.refusal = mediaRefusalError(verdict.refusal);
        target.preflight = undefined;
        return;
      }
      for (const fitted of verdict?.fitted ?? []) target.transforms.push({ kind: "image_fitted", ...fitted });
    });
  } catch (error) {
    if (!(error instanceof MediaRefusal)) throw error;
    errors.push(mediaRefusalError(error));
  }
}

/**
 * The dry run of a create: the checks `preparePost` makes of a publish, schedule or queue body
 * (the payload, `scheduledFor`, the connections, TikTok's `creator_info`, the media and the
 * fitting of images), answered for every target instead of stopping at the first refusal, with
 * what each target would be sent other than as given. Nothing is created: no post, no media
 * record, no fitted copy (media at other URLs is imported to be read and deleted again). Within
 * the same deadline as a create (504 PREFLIGHT_TIMEOUT), and a 429 when the account's images
 * cannot take their turn; every other refusal is in the answer.
 */
export async function validatePost(
  deps: RouteDeps,
  accountId: string,
  body: ValidateBody,
  given: Partial<CheckLimits> = {},
): Promise<PostValidation> {
  const limits = { ...CHECK_LIMITS, ...given };
  const errors: ApiError[] = [];
  const { scheduledFor } = body;
  const late =
    scheduledFor === undefined ? undefined : refusalOf(() => futureInstant(scheduledFor, deps.clock.now()));
  if (late) errors.push(late);
  const parsed = toPostContent(body);
  if (!parsed.ok) errors.push(invalidPayload(parsed.issues));
  const content = parsed.ok ? parsed.content : undefined;
  const { ids, issues } = await resolveTargetIds(deps, accountId, body);
  if (issues.length > 0) errors.push(invalidPayload(issues));
  const connections = await findAccountConnections(deps.db, accountId, ids);
  const judged: Judged[] = ids.map((connectionId) => {
    const connection = connections.find((candidate) => candidate.id === connectionId);
    const verdict = judgeConnection(connectionId, connection, content);
    const platform = connection?.platform ?? null;
    if (!verdict.ok)
      return { connectionId, platform, refusal: verdict.refusal, judged: true, transforms: [] };
    // Without valid content only the connection can be judged: the rest of it is not.
    return {
      connectionId,
      platform,
      preflight: content ? verdict.target : undefined,
      judged: false,
      transforms: [],
    };
  });
  if (content) {
    await withinCheckDeadline(limits.deadlineMs, async (signal) => {
      await judgeCreators(deps, judged, content, limits);
      signal.throwIfAborted();
      await judgeMedia(deps, accountId, body, content, judged, errors, signal);
    });
    for (const target of judged) {
      if (target.preflight) target.transforms.push(...textTransformsFor(target.preflight.platform, content));
    }
  }
  const targets = judged.map((target) => ({
    connectionId: target.connectionId,
    platform: target.platform,
    accepted: target.judged && target.refusal === undefined,
    errors: target.refusal ? [target.refusal.toBody()] : [],
    transforms: target.refusal ? [] : target.transforms,
  }));
  return {
    valid: errors.length === 0 && targets.every((target) => target.accepted),
    errors: errors.map((error) => error.toBody()),
    targets,
  };
}

import type { PostStatus } from "../contracts/post.ts";
import { editedParts, editedPayload, type PostEdit } from "../domain/post-edit.ts";
import { PublisherError } from "../errors.ts";
import { applyPostEdit, type EditOutcome, type PostChange } from "../store/post-edits.ts";
import { findPost, type PostRecord, targetOutcomes } from "../store/posts.ts";
import type { RouteDeps } from "./deps.ts";
import { futureInstant, invalidPayload } from "./post-checks.ts";
import { postNotFound } from "./posts_get.ts";
import { preparePost } from "./prepare-post.ts";

const EDITABLE_FIELDS =
  "scheduledFor, caption (or title, text, description, hashtags), videoUrl, mediaUrls, mediaItems, connectionIds or groupIds";

/** 400 POST_NOT_SCHEDULED: a draft (a cancelled post) has no schedule to edit. */
const notScheduled = (id: string, status: PostStatus) =>
  new PublisherError("POST_NOT_SCHEDULED", `Only a scheduled post can be edited; this one is ${status}.`, {
    id,
    status,
  });

/** 409 POST_PUBLISHING_STARTED: a worker has begun publishing it; nothing was changed. */
const publishingStarted = (id: string, status: PostStatus) =>
  new PublisherError(
    "POST_PUBLISHING_STARTED",
    `This post can no longer be edited: publishing it has begun (it is ${status}); nothing was changed. Follow it with GET /api/v1/posts/${id}.`,
    { id, status },
  );

/** The refusal of a post that is not (or no longer) a scheduled one nobody has started. */
function refusalOf(id: string, outcome: Exclude<EditOutcome, { kind: "applied" }>): PublisherError {
  switch (outcome.kind) {
    case "not_found":
      return postNotFound(id);
    case "not_scheduled":
      return notScheduled(id, outcome.status);
    case "started":
      return publishingStarted(id, outcome.status);
    case "changed":
      return new PublisherError(
        "POST_EDIT_CONFLICT",
        "The post was changed (edited or cancelled) while this edit was being checked; nothing was changed. Read it again and send the edit again.",
        { id },
      );
  }
}

/** A post's status as an edit sees it before any check runs: only `scheduled` goes on. */
function ensureScheduled(post: PostRecord): void {
  if (post.status === "draft") throw notScheduled(post.id, post.status);
  if (post.status !== "scheduled") throw publishingStarted(post.id, post.status);
}

/**
 * Edits a scheduled post: `scheduledFor` (in the future, as a schedule), the caption, the media or
 * the targets. The post as it would be is checked exactly as a new one (`preparePost`: text limits,
 * connections, creator_info, media checks and fitting) whenever its caption, media or targets
 * change; then written in one transaction that loses cleanly to a worker that already claimed a
 * target (409 `POST_PUBLISHING_STARTED`) or to another edit or a cancel made meanwhile (409
 * `POST_EDIT_CONFLICT`): nothing is changed then. Throws the refusal; returns nothing when written.
 */
export async function editPost(
  deps: RouteDeps,
  accountId: string,
  postId: string,
  edit: PostEdit,
): Promise<void> {
  const parts = editedParts(edit);
  if (parts.length === 0)
    throw invalidPayload([{ path: "", message: `name at least one of ${EDITABLE_FIELDS}` }]);
  const post = await findPost(deps.db, accountId, postId);
  if (!post) throw postNotFound(postId);
  ensureScheduled(post);
  const now = deps.clock.now();
  const scheduledFor =
    edit.scheduledFor === undefined ? post.scheduledFor : futureInstant(edit.scheduledFor, now);
  // Only what changes is checked again: a move in time alone keeps the content and targets checked before.
  const prepared = parts.some((part) => part !== "scheduledFor")
    ? await preparePost(deps, accountId, editedPayload(post, edit))
    : undefined;
  const change: PostChange = {
    accountId,
    postId,
    parts,
    base: { content: post.content, connectionIds: post.connectionIds, scheduledFor: post.scheduledFor },
    content: prepared?.content ?? post.content,
    targets: prepared?.targets ?? (await targetOutcomes(deps.db, postId)),
    scheduledFor,
    now,
  };
  const outcome = await applyPostEdit(deps.db, change);
  if (outcome.kind !== "applied") throw refusalOf(postId, outcome);
}

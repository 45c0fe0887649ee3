-- Deleting published copies on their platforms (issue 18, DELETE /api/v1/posts/{id}/published).
--   deleted_at  when the target's published copy was removed from its platform (YouTube
--               videos.delete, Bluesky deleteRecord), or found gone there; null while it stands.
--               The target stays `published`, with its platform id, so the history reads true.
ALTER TABLE post_targets ADD COLUMN deleted_at timestamptz;

/** A wallet keeps at most this many favorites. */
export const MAX_FAVORITES = 3;

/** Length bounds of a saved fortune's text. */
export const FAVORITE_TEXT = { min: 1, max: 280 } as const;

/** Why media could not be read for publishing. */
export type MediaErrorCode =
  | "MEDIA_URL_REJECTED"
  | "MEDIA_UNAVAILABLE"
  | "MEDIA_TOO_LARGE"
  | "MEDIA_TYPE_UNKNOWN"
  /** The media cannot be made to fit a platform (an image that does not decode, say). */
  | "MEDIA_NOT_ACCEPTED";

/** A media URL that was refused or could not be read; `transient` when a later try may work. */
export class MediaError extends Error {
  readonly code: MediaErrorCode;
  readonly transient: boolean;

  constructor(code: MediaErrorCode, message: string, transient = false) {
    super(message);
    this.name = "MediaError";
    this.code = code;
    this.transient = transient;
  }
}

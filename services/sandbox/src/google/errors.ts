import type { ErrorRenderer } from "../kit/failure.ts";

const STATUS_TEXT: Record<number, string> = {
  400: "INVALID_ARGUMENT",
  401: "UNAUTHENTICATED",
  403: "PERMISSION_DENIED",
  404: "NOT_FOUND",
  409: "ABORTED",
  410: "NOT_FOUND",
  413: "OUT_OF_RANGE",
  429: "RESOURCE_EXHAUSTED",
  500: "INTERNAL",
  503: "UNAVAILABLE",
};

const DEFAULT_REASON: Record<number, string> = {
  400: "badRequest",
  401: "authError",
  403: "forbidden",
  404: "notFound",
  410: "notFound",
  413: "uploadTooLarge",
  429: "rateLimitExceeded",
  500: "backendError",
  503: "backendError",
};

const DEFAULT_MESSAGE: Record<number, string> = {
  401: "Request had invalid authentication credentials. Expected OAuth 2 access token, login cookie or other valid authentication credential.",
  429: "The request cannot be completed because you have exceeded your quota.",
  500: "Backend Error",
  503: "The service is currently unavailable.",
};

const DOMAIN: Record<string, string> = {
  quotaExceeded: "youtube.quota",
  rateLimitExceeded: "youtube.quota",
  uploadLimitExceeded: "youtube.video",
  invalidTitle: "youtube.video",
  invalidDescription: "youtube.video",
  invalidTags: "youtube.video",
  invalidCategoryId: "youtube.video",
  invalidPrivacyStatus: "youtube.video",
  invalidPublishAt: "youtube.video",
  youtubeSignupRequired: "youtube.header",
  unknownPart: "youtube.part",
  mediaBodyRequired: "youtube.video",
  videoNotFound: "youtube.video",
};

/** Reasons that name the request parameter at fault (Google adds `location`, `locationType`). */
const PARAMETER: Record<string, string> = { unknownPart: "part", required: "part", videoNotFound: "id" };

/** The parameter a refusal is about: `required` names it in its message ("Required parameter: id"). */
function parameterAtFault(reason: string, text: string): string | undefined {
  if (reason === "required") return /^Required parameter: (\w+)/.exec(text)?.[1] ?? PARAMETER[reason];
  return PARAMETER[reason];
}

/** Google's JSON error body: `{error: {code, message, errors: [{message, domain, reason}], status}}`. */
export const googleApiErrors: ErrorRenderer = ({ status, code, message }) => {
  const reason = code || DEFAULT_REASON[status] || "backendError";
  const text = message || DEFAULT_MESSAGE[status] || "The request failed.";
  const detail: Record<string, string> = { message: text, domain: DOMAIN[reason] ?? "global", reason };
  if (status === 401) Object.assign(detail, { location: "Authorization", locationType: "header" });
  else {
    const parameter = parameterAtFault(reason, text);
    if (parameter) Object.assign(detail, { location: parameter, locationType: "parameter" });
  }
  return {
    status,
    body: {
      error: { code: status, message: text, errors: [detail], status: STATUS_TEXT[status] ?? "UNKNOWN" },
    },
  };
};

const DEFAULT_OAUTH_ERROR: Record<number, string> = {
  400: "invalid_request",
  401: "invalid_client",
  429: "rate_limit_exceeded",
  500: "internal_failure",
  503: "temporarily_unavailable",
};

/** Google's OAuth token endpoint error body: `{error, error_description}`. */
export const googleOAuthErrors: ErrorRenderer = ({ status, code, message }) => ({
  status,
  body: {
    error: code || DEFAULT_OAUTH_ERROR[status] || "server_error",
    error_description: message || "Bad Request",
  },
});

import type { ContentfulStatusCode } from "hono/utils/http-status";

/**
 * Whether a status may carry a body (what `c.json` answers with): a final status, not 204, 205 or
 * 304. The twins' failures and injected faults are 4xx and 5xx.
 */
export function isContentfulStatus(status: number): status is ContentfulStatusCode {
  return Number.isInteger(status) && status >= 200 && status <= 599 && ![204, 205, 304].includes(status);
}

/** A failure's status, for a response with a body; one that cannot carry a body is answered 500. */
export function contentfulStatus(status: number): ContentfulStatusCode {
  return isContentfulStatus(status) ? status : 500;
}

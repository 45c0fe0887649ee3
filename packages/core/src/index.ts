export { createRoute, OpenAPIHono, z } from "@hono/zod-openapi";
export {
  type AppEnv,
  createServiceApp,
  ErrorBodySchema,
  errorResponseSpec,
  jsonResponse,
  type ServiceApp,
  type ServiceAppOptions,
} from "./app.ts";
export { type Clock, systemClock, toIso } from "./clock.ts";
export { ConfigError, type Env, loadConfig, settings } from "./config.ts";
export { errorSummary, routeConsoleTo, scrubUrls } from "./console.ts";
export { createTextSealer, type TextSealer } from "./crypto/sealer.ts";
export { type DecimalTextLimits, formatDecimalUnits, parseDecimalUnits } from "./decimal.ts";
export {
  ApiError,
  createErrorHandler,
  defineErrors,
  type ErrorBody,
  type ErrorDetails,
  type ErrorTable,
  errorResponse,
  PLATFORM_ERRORS,
  type PlatformErrorCode,
  type ServiceErrorClass,
} from "./errors.ts";
export { type ContentLengthGuardOptions, contentLengthGuard } from "./http/content-length.ts";
export { requestHeader, setResponseHeader } from "./http/headers.ts";
export { hostileJsonIssue, MAX_JSON_DEPTH } from "./http/hostile-json.ts";
export { jsonTextOf } from "./http/json-text.ts";
export { notFoundOrMethodNotAllowed } from "./http/not-found.ts";
export { requestContext, requestIdOf } from "./http/request-context.ts";
export { requestBodySource, streamRequestBody } from "./http/stream-body.ts";
export { newId, newSecret } from "./ids.ts";
export {
  createLogger,
  isSecretName,
  type Logger,
  type LoggerConfig,
  REDACTED,
  redactHeaders,
} from "./logger.ts";
export { runMain, type Stoppable } from "./run.ts";
export { type RunningServer, serveApp } from "./serve.ts";
export { toValidationIssues, type ValidationIssue, validationError, validationHook } from "./validation.ts";

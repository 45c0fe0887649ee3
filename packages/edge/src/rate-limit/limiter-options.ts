import { type Clock, systemClock } from "@app/core";
import type { RateRule } from "./rate-limiter.ts";

/** How a limiter on the database is made. */
export type DatabaseLimiterOptions = {
  /**
   * Whose rows these are: the service, and which of its limits where it has several
   * (`publisher`, `shop.read`, `shop.booking`). Two limiters with one namespace share their counts.
   */
  namespace: string;
  rule: RateRule;
  clock?: Clock;
};

const NAMESPACE = /^[a-z][a-z0-9_.:-]{0,62}$/;

/** The rule, checked: a whole `limit` of at least 1 per a positive number of seconds. */
export function checkedRule(rule: RateRule): RateRule {
  if (!Number.isInteger(rule.limit) || rule.limit < 1) {
    throw new RangeError(`A rate limit must be a whole number of at least 1: ${rule.limit}`);
  }
  if (!Number.isFinite(rule.windowSeconds) || rule.windowSeconds <= 0) {
    throw new RangeError(`A rate window must be a positive number of seconds: ${rule.windowSeconds}`);
  }
  return { limit: rule.limit, windowSeconds: rule.windowSeconds };
}

/** The options of a database limiter, checked, the clock defaulted to the system's. */
export function checkedOptions(options: DatabaseLimiterOptions): Required<DatabaseLimiterOptions> {
  if (!NAMESPACE.test(options.namespace)) {
    throw new RangeError(
      `A rate-limit namespace must be lower-case, such as "shop.read": ${options.namespace}`,
    );
  }
  return {
    namespace: options.namespace,
    rule: checkedRule(options.rule),
    clock: options.clock ?? systemClock,
  };
}

/** A row-returning SQL runner: the whole pool, or one transaction. */
export interface Queryable {
  /** Runs one parameterised statement (`$1`, `$2`, …) and returns its rows. */
  query<Row = Record<string, unknown>>(sql: string, params?: readonly unknown[]): Promise<Row[]>;
  /** Runs a script of several statements without parameters (migrations). */
  exec(sql: string): Promise<void>;
}

/**
 * One handle over the platform database: embedded PGlite by default, PostgreSQL
 * when a `postgres://` URL is configured. Both speak the same SQL and return the
 * same JavaScript types: `timestamptz` as `Date`, `int8` as `number`, `numeric` as
 * `string`, `json`/`jsonb` parsed.
 */
export interface Database extends Queryable {
  readonly kind: "pglite" | "postgres";
  /** Runs `work` in one transaction: committed when it resolves, rolled back when it throws. */
  transaction<T>(work: (tx: Queryable) => Promise<T>): Promise<T>;
  close(): Promise<void>;
}

/** Postgres type ids whose parsing is made identical on both drivers. */
export const TYPE_IDS = { int8: 20, numeric: 1700 } as const;

export const parseInt8 = (value: string): number => Number(value);
export const parseNumeric = (value: string): string => value;

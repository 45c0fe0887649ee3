/** How one statement is sent. */
export type QueryOptions = {
  /**
   * PostgreSQL only (PGlite ignores it): the statement is prepared under this name once per
   * connection, and afterwards only bound and run, sparing its parse and plan. For a hot statement
   * whose parameters are all cast explicitly and whose plan does not depend on their values: after
   * five runs PostgreSQL may keep one generic plan for every value, and the parameter types stay
   * those of the first parse. Every other statement goes unnamed, planned for its values.
   */
  prepareAs?: string;
};

/** A row-returning SQL runner: the whole pool, or one transaction. */
export interface Queryable {
  /** Runs one parameterised statement (`$1`, `$2`, …) and returns its rows. */
  query<Row = Record<string, unknown>>(
    sql: string,
    params?: readonly unknown[],
    options?: QueryOptions,
  ): Promise<Row[]>;
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
  /**
   * Set on the owner of an embedded database only: a PostgreSQL URL where other processes of this
   * machine reach it (the CLIs, extra workers, psql).
   */
  readonly endpoint?: string;
  /** Runs `work` in one transaction: committed when it resolves, rolled back when it throws. */
  transaction<T>(work: (tx: Queryable) => Promise<T>): Promise<T>;
  close(): Promise<void>;
}

/** Postgres type ids whose parsing is made identical on both drivers. */
export const TYPE_IDS = { int8: 20, numeric: 1700 } as const;

export const parseInt8 = (value: string): number => Number(value);
export const parseNumeric = (value: string): string => value;

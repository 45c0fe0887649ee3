import type { Database, Queryable } from "@app/db";

class Rollback extends Error {}

/** A transaction held open on `handle` until the test commits or rolls it back. */
export type HeldTransaction = {
  /** The open transaction, to run statements in while it is held. */
  tx: Promise<Queryable>;
  commit(): Promise<void>;
  rollback(): Promise<void>;
};

/**
 * Opens a transaction on `handle` and holds it until `commit` or `rollback` (the first decision
 * holds; the other is then a no-op). For tests of concurrent writers on PostgreSQL.
 */
export function holdTransaction(handle: Database): HeldTransaction {
  let decide!: (commit: boolean) => void;
  const decision = new Promise<boolean>((resolve) => {
    decide = resolve;
  });
  let opened!: (tx: Queryable) => void;
  const tx = new Promise<Queryable>((resolve) => {
    opened = resolve;
  });
  const done = handle
    .transaction(async (inner) => {
      opened(inner);
      if (!(await decision)) throw new Rollback();
    })
    .catch((error: unknown) => {
      if (!(error instanceof Rollback)) throw error;
    });
  return {
    tx,
    commit: () => {
      decide(true);
      return done;
    },
    rollback: () => {
      decide(false);
      return done;
    },
  };
}

/**
 * Where test databases come from, decided once per run by the global setup:
 * a migrated PGlite snapshot file, or a migrated PostgreSQL template database.
 */
export type TestDatabaseSource =
  | { kind: "pglite"; snapshotPath: string }
  | { kind: "postgres"; adminUrl: string; template: string };

declare module "vitest" {
  export interface ProvidedContext {
    testDatabase: TestDatabaseSource;
  }
}

/** The URL of database `name` on the server of `url`. */
export function withDatabase(url: string, name: string): string {
  const parsed = new URL(url);
  parsed.pathname = `/${name}`;
  return parsed.toString();
}

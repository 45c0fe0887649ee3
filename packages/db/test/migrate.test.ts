import { allMigrationSets, test, testDatabaseKind } from "@app/testkit";
import { describe, expect } from "vitest";
import { type Migration, migrate } from "../src/index.ts";

const MIGRATIONS: Migration[] = [
  { id: "001_notes", sql: "CREATE TABLE notes (id serial PRIMARY KEY, body text NOT NULL);" },
  {
    id: "002_note_tags",
    sql: "ALTER TABLE notes ADD COLUMN tag text; CREATE INDEX notes_tag ON notes (tag);",
  },
];

describe("migrations", () => {
  test("the test database starts with every service's migrations applied", async ({ db }) => {
    const rows = await db.query<{ schema_name: string; id: string }>(
      "SELECT schema_name, id FROM platform.migrations ORDER BY schema_name, id",
    );
    const expected = (await allMigrationSets()).flatMap((set) =>
      set.migrations.map((migration) => ({ schema_name: set.schema, id: migration.id })),
    );
    expect(rows).toEqual(expected);
  });

  test("applies each migration once, into the service's own schema", async ({ db }) => {
    expect(await migrate(db, { schema: "once_test", migrations: MIGRATIONS })).toEqual([
      "001_notes",
      "002_note_tags",
    ]);
    expect(await migrate(db, { schema: "once_test", migrations: MIGRATIONS })).toEqual([]);
    await db.query("INSERT INTO once_test.notes (body, tag) VALUES ($1, $2)", ["hello", "a"]);
    const applied = await db.query<{ count: number }>(
      "SELECT count(*)::int8 AS count FROM platform.migrations WHERE schema_name = 'once_test'",
    );
    expect(applied[0]?.count).toBe(2);
  });

  test("applies them once when several instances start together", async ({ db }) => {
    const runs = await Promise.all(
      [1, 2, 3, 4].map(() => migrate(db, { schema: "race_test", migrations: MIGRATIONS })),
    );
    expect(runs.flat().sort()).toEqual(["001_notes", "002_note_tags"]);
  });

  test("refuses a migration whose text changed after it was applied", async ({ db }) => {
    await migrate(db, { schema: "drift_test", migrations: MIGRATIONS });
    const edited = [{ ...MIGRATIONS[0], sql: "CREATE TABLE notes (id int);" } as Migration];
    await expect(migrate(db, { schema: "drift_test", migrations: edited })).rejects.toThrow(/changed after/);
  });

  test("rolls a failed migration back whole", async ({ db }) => {
    const broken: Migration[] = [
      { id: "001_broken", sql: "CREATE TABLE half (id int); SELECT * FROM missing_table;" },
    ];
    await expect(migrate(db, { schema: "broken_test", migrations: broken })).rejects.toThrow();
    const tables = await db.query(
      "SELECT 1 FROM information_schema.tables WHERE table_schema = 'broken_test'",
    );
    expect(tables).toEqual([]);
    expect(testDatabaseKind()).toMatch(/pglite|postgres/);
  });
});

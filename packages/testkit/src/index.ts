export { type FakeClock, fakeClock } from "./clock.ts";
export type { TestDatabaseSource } from "./database-source.ts";
export { test } from "./fixtures.ts";
export { type HeldTransaction, holdTransaction } from "./held-transaction.ts";
export { json, jsonOf } from "./http.ts";
export { captureLogs, silentLogger } from "./logs.ts";
export { allMigrationSets } from "./migration-sets.ts";
export { openSecondHandle, openTestDatabase, testDatabaseKind } from "./test-database.ts";

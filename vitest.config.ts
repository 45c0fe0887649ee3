import { configDefaults, defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: ["packages/*/test/**/*.test.ts", "services/*/test/**/*.test.ts", "apps/*/test/**/*.test.ts"],
    // Tests of several processes on one database server run in the PostgreSQL pass only; tests of
    // the embedded database itself (PGlite on disk, its owner and its socket) in the PGlite pass only.
    exclude: [
      ...configDefaults.exclude,
      ...(process.env.TEST_DATABASE_URL ? ["**/*.embedded.test.ts"] : ["**/*.postgres.test.ts"]),
    ],
    globalSetup: ["packages/testkit/src/global-setup.ts"],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    pool: "forks",
    maxWorkers: 2,
  },
});

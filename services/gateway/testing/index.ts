/**
 * `@app/gateway/testing`: the gateway with self-serve credit on a real local chain and database,
 * for tests here and in other workspaces (the `pay` CLI's). Never imported by production code.
 *
 * @module
 */
export * from "./self-serve.ts";

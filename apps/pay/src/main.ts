/**
 * Entry point of `npm run pay -- <path> [options]`: pays a fortune endpoint from the
 * local demo wallet. The environment is read here, once.
 *
 * @module
 */
import { payEnv, run } from "./cli.ts";

process.exitCode = await run(process.argv.slice(2), payEnv(process.env), {
  out: (line) => process.stdout.write(`${line}\n`),
  err: (line) => process.stderr.write(`${line}\n`),
  write: (text) => process.stdout.write(text),
});

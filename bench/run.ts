import { benchFortune } from "./fortune.ts";
import { benchHttpStack } from "./http-stack.ts";

/** `npm run bench`: every benchmark of the platform, each against a baseline measured in the same run. */
process.stdout.write(`Benchmarks on ${process.version}, ${(await import("node:os")).cpus().length} cores\n`);
await benchHttpStack();
await benchFortune();

/**
 * `npm start -w services/fortune`: the service alone, on the local chain by default
 * (`FORTUNE_RAILS=hosted` starts no chain). Production runs `src/main.ts`, which never starts one.
 */
import { runStandalone } from "@app/runtime";
import { fortuneLocalService } from "./chain.ts";

await runStandalone(fortuneLocalService);

/**
 * The production entry (`npm run start:hosted -w services/fortune`): hosted rails from config. It
 * cannot start a local chain; `local/main.ts` (`npm start -w services/fortune`) can.
 */
import { runStandalone } from "@app/runtime";
import { fortuneService } from "./service.ts";

await runStandalone(fortuneService);

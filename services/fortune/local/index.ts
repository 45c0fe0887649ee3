/**
 * `@app/fortune/local`: the fortune service wired to the local chain, for the launcher
 * (`apps/local`), `npm start -w services/fortune`, tests and the bench. Never imported by production
 * code; `@app/local-chain` is a devDependency of this workspace.
 *
 * @module
 */
export { fortuneLocalChain, fortuneLocalService, LOCAL_MPP_SECRET, localChainRails } from "./chain.ts";

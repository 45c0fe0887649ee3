import { createServiceApp, type Logger, type ServiceApp } from "@app/core";
import { findAccount } from "../bluesky/accounts.ts";
import type { BlueskyNetwork } from "../bluesky/network.ts";
import type { ErrorRenderer } from "../kit/failure.ts";
import { PlatformFailure } from "../kit/failure.ts";
import { mountOperation, type OperationKit, type OperationSpec } from "../kit/operations.ts";
import { didDocumentOf } from "./did-document.ts";

/** plc.directory's error body: `{message}`. */
const plcErrors: ErrorRenderer = ({ status, code, message }) => ({
  status,
  body: { message: message || code || "Internal Server Error" },
});

/** The PLC directory's one operation, for the request log and faults. */
export const PLC_RESOLVE: OperationSpec = {
  operation: "plc.resolveDid",
  platform: "bluesky",
  method: "get",
  path: "/:did",
  summary: "A did:plc's DID document (handle, signing key, PDS), as plc.directory answers it",
  errors: plcErrors,
};

/**
 * The sandbox's PLC directory, at the root of its own listener (`@atproto/identity` asks
 * `new URL('/<did>', plcUrl)`, which drops any path prefix): `GET /<did>` answers the DID
 * document of every Bluesky account of the sandbox, naming the PDS that hosts it; any other DID
 * is 404 `DID not registered`.
 */
export function createPlcDirectory(kit: OperationKit, network: BlueskyNetwork, logger: Logger): ServiceApp {
  const app = createServiceApp({
    name: "sandbox-plc",
    title: "Sandbox PLC directory",
    version: "1.0.0",
    description: "The DID documents of the sandbox's Bluesky accounts, as plc.directory serves them.",
    logger,
    checkReady: async () => {},
  });
  mountOperation(app, kit, PLC_RESOLVE, (c) => {
    const did = c.req.param("did") ?? "";
    const account = did.startsWith("did:plc:") ? findAccount(did) : undefined;
    if (!account) throw new PlatformFailure(404, "NotFound", `DID not registered: ${did.slice(0, 200)}`);
    const document = didDocumentOf(account, network.origins[account.pds]);
    return c.body(JSON.stringify(document), 200, {
      "content-type": "application/did+ld+json; charset=utf-8",
    });
  });
  return app;
}

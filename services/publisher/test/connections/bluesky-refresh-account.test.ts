import { describe, expect, it } from "vitest";
import { refreshSecrets } from "../../src/connections/refresh.ts";
import type { BlueskyAdapter } from "../../src/platforms/bluesky/bluesky-client.ts";
import type { Adapters } from "../../src/platforms/index.ts";

const session = (did: string) => ({ accessJwt: "a.b.c", refreshJwt: "r.s.t", did, handle: "h.test" });
const secrets = {
  accessToken: "old",
  refreshToken: "old-refresh",
  service: "https://pds.example",
  did: "did:plc:connectedaaaaaaaaaaaaaaa",
  appPassword: "abcd-efgh-ijkl-mnop",
};

/** A PDS that answers every session call for `did`. */
const adaptersFor = (did: string) =>
  ({
    bluesky: {
      refreshSession: async () => session(did),
      createSession: async () => session(did),
    } as unknown as BlueskyAdapter,
  }) as Adapters;

describe("refreshing a Bluesky session", () => {
  it("keeps the connection's account", async () => {
    const fresh = await refreshSecrets(adaptersFor(secrets.did), "bluesky", secrets);
    expect(fresh).toMatchObject({ did: secrets.did, service: secrets.service });
  });

  it("refuses a PDS that answers for another account, by refresh or by signing in again", async () => {
    const other = adaptersFor("did:plc:someoneelseaaaaaaaaaaaaa");
    await expect(refreshSecrets(other, "bluesky", secrets)).rejects.toMatchObject({
      kind: "reconnect",
      reason: "AccountMismatch",
    });
  });
});

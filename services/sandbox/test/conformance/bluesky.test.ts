/**
 * The Bluesky twin driven by the official client, unchanged: `@atproto/api`'s `AtpAgent` and
 * `RichText`, `@atproto/identity`'s `IdResolver`, and the official validators on what is read
 * back. Record CIDs are checked with a DAG-CBOR encoding written here from the specs, itself
 * checked against atproto's interop fixtures.
 */
import { createHash } from "node:crypto";
import { json } from "@app/testkit";
import { AppBskyFeedPost, AtpAgent, AtUri, lexicons, RichText } from "@atproto/api";
import { IdResolver } from "@atproto/identity";
import { jsonToLex } from "@atproto/lexicon";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { recordCid } from "../../src/bluesky/record-cid.ts";
import { DEMO_BLUESKY, DEMO_BLUESKY_SELF_HOSTED } from "../../src/demo.ts";
import { manualClock, mediaFile, postJson, type SandboxNetwork, startSandboxNetwork } from "../harness.ts";

// --- An independent DAG-CBOR encoder (RFC 8949 + the DAG-CBOR and atproto data-model rules) ---

const BASE32 = "abcdefghijklmnopqrstuvwxyz234567";

function base32Decode(text: string): Uint8Array {
  const out: number[] = [];
  let bits = 0;
  let value = 0;
  for (const char of text) {
    value = (value << 5) | BASE32.indexOf(char);
    bits += 5;
    if (bits >= 8) {
      out.push((value >>> (bits - 8)) & 255);
      bits -= 8;
    }
  }
  return new Uint8Array(out);
}

function base32Encode(bytes: Uint8Array): string {
  let out = "";
  let bits = 0;
  let value = 0;
  for (const byte of bytes) {
    value = (value << 8) | byte;
    bits += 8;
    while (bits >= 5) {
      out += BASE32[(value >>> (bits - 5)) & 31];
      bits -= 5;
    }
  }
  return bits > 0 ? out + BASE32[(value << (5 - bits)) & 31] : out;
}

/** A CBOR head: major type and argument, in the shortest form (DAG-CBOR requires it). */
function head(major: number, argument: number): number[] {
  const type = major << 5;
  if (argument < 24) return [type | argument];
  if (argument < 0x100) return [type | 24, argument];
  if (argument < 0x10000) return [type | 25, argument >> 8, argument & 255];
  if (argument < 0x100000000)
    return [type | 26, ...[24, 16, 8, 0].map((shift) => (argument >>> shift) & 255)];
  const high = Math.floor(argument / 0x100000000);
  return [
    type | 27,
    ...[24, 16, 8, 0].map((s) => (high >>> s) & 255),
    ...[24, 16, 8, 0].map((s) => (argument >>> s) & 255),
  ];
}

/** The DAG-CBOR bytes of a value in its atproto JSON form (`$link` → tag 42 CID, `$bytes` → byte string). */
function dagCbor(value: unknown): number[] {
  if (value === null) return [0xf6];
  if (value === true) return [0xf5];
  if (value === false) return [0xf4];
  if (typeof value === "number") {
    if (!Number.isSafeInteger(value)) throw new Error("atproto data has no floats");
    return value >= 0 ? head(0, value) : head(1, -1 - value);
  }
  if (typeof value === "string") {
    const bytes = Buffer.from(value, "utf8");
    return [...head(3, bytes.length), ...bytes];
  }
  if (Array.isArray(value)) return [...head(4, value.length), ...value.flatMap(dagCbor)];
  const object = value as Record<string, unknown>;
  const keys = Object.keys(object);
  if (keys.length === 1 && typeof object.$link === "string") {
    const cid = [0, ...base32Decode(object.$link.slice(1))];
    return [0xd8, 42, ...head(2, cid.length), ...cid];
  }
  if (keys.length === 1 && typeof object.$bytes === "string") {
    const bytes = Buffer.from(object.$bytes, "base64");
    return [...head(2, bytes.length), ...bytes];
  }
  const entries = keys
    .filter((key) => object[key] !== undefined)
    .map((key) => [Buffer.from(key, "utf8"), object[key]] as const)
    .sort(([a], [b]) => a.length - b.length || Buffer.compare(a, b));
  return [
    ...head(5, entries.length),
    ...entries.flatMap(([key, item]) => [...head(3, key.length), ...key, ...dagCbor(item)]),
  ];
}

/** CIDv1, dag-cbor (0x71), sha2-256 (0x12, 32 bytes), base32 multibase. */
function independentCid(value: unknown): string {
  const digest = createHash("sha256")
    .update(Uint8Array.from(dagCbor(value)))
    .digest();
  return `b${base32Encode(Uint8Array.from([0x01, 0x71, 0x12, 0x20, ...digest]))}`;
}

/**
 * Two entries of atproto's data-model interop fixtures, as published in
 * bluesky-social/atproto `packages/lex/lex-cbor/tests/data-model-fixtures.json` (commit d6296a1c):
 * a JSON value, its DAG-CBOR bytes (base64) and its CID.
 */
const FIXTURES = [
  {
    json: {
      string: "abc",
      unicode: "a~öñ©⽘☎𓋓😀👨‍👩‍👧‍👧",
      integer: 123,
      bool: true,
      null: null,
      array: ["abc", "def", "ghi"],
      object: { string: "abc", number: 123, bool: true, arr: ["abc", "def", "ghi"] },
    },
    cbor_base64:
      "p2Rib29s9WRudWxs9mVhcnJheYNjYWJjY2RlZmNnaGlmb2JqZWN0pGNhcnKDY2FiY2NkZWZjZ2hpZGJvb2z1Zm51bWJlchh7ZnN0cmluZ2NhYmNmc3RyaW5nY2FiY2dpbnRlZ2VyGHtndW5pY29kZXgvYX7DtsOxwqnivZjimI7wk4uT8J+YgPCfkajigI3wn5Gp4oCN8J+Rp+KAjfCfkac",
    cid: "bafyreiclp443lavogvhj3d2ob2cxbfuscni2k5jk7bebjzg7khl3esabwq",
  },
  {
    json: {
      a: { $link: "bafyreidfayvfuwqa7qlnopdjiqrxzs6blmoeu4rujcjtnci5beludirz2a" },
      b: { $bytes: "nFERjvLLiw9qm45JrqH9QTzyC2Lu1Xb4ne6+sBrCzI0" },
      c: {
        $type: "blob",
        ref: { $link: "bafkreiccldh766hwcnuxnf2wh6jgzepf2nlu2lvcllt63eww5p6chi4ity" },
        mimeType: "image/jpeg",
        size: 10000,
      },
    },
    cbor_base64:
      "o2Fh2CpYJQABcRIgZQYqWloA/BbXPGlEI3zLwVscSnI0SJM2iR0JF0GiOdBhYlggnFERjvLLiw9qm45JrqH9QTzyC2Lu1Xb4ne6+sBrCzI1hY6RjcmVm2CpYJQABVRIgQljP/3j2E2l2l1Y/kmyR5dNXTS6iWuftktbr/COjiJ5kc2l6ZRknEGUkdHlwZWRibG9iaG1pbWVUeXBlamltYWdlL2pwZWc",
    cid: "bafyreihldkhcwijkde7gx4rpkkuw7pl6lbyu5gieunyc7ihactn5bkd2nm",
  },
];

describe("record CIDs: DAG-CBOR as atproto's interop fixtures define it", () => {
  test.for(FIXTURES.map((fixture, index) => [index, fixture] as const))(
    "fixture %i: the independent encoder gives the fixture's bytes and CID, and so does the twin",
    async ([, fixture]) => {
      expect(Buffer.from(dagCbor(fixture.json)).toString("base64").replace(/=+$/, "")).toBe(
        fixture.cbor_base64,
      );
      expect(independentCid(fixture.json)).toBe(fixture.cid);
      expect(await recordCid(fixture.json)).toBe(fixture.cid);
    },
  );
});

// --- The twin driven by the official client ---

const clock = manualClock(new Date());
let sandbox: SandboxNetwork;
beforeAll(async () => {
  sandbox = await startSandboxNetwork(() => {}, { clock });
});
afterAll(() => sandbox.close());

const TEXT = "Hello @sandbox-demo.bsky.test, read https://example.com/a?b=c ✨ #twin #Check";

async function loggedInAgent(service: string, account: { handle: string; appPassword: string }) {
  const agent = new AtpAgent({ service });
  await agent.login({ identifier: account.handle, password: account.appPassword });
  return agent;
}

/** getRecord's raw JSON (what the PDS sent, before the client turns links into CID objects). */
async function rawRecord(service: string, uri: string) {
  const [, , did, collection, rkey] = uri.split("/");
  const res = await fetch(
    `${service}/xrpc/com.atproto.repo.getRecord?repo=${did}&collection=${collection}&rkey=${rkey}`,
  );
  return json(res);
}

describe("@atproto/api against the Bluesky twin", () => {
  test("a post with RichText facets and an image: created, read back, valid, its blob and CID checked, deleted", async () => {
    await fetch(`${sandbox.url}/_sandbox/reset`, { method: "POST" });
    const agent = await loggedInAgent(sandbox.url, DEMO_BLUESKY);

    const rt = new RichText({ text: TEXT });
    await rt.detectFacets(agent);
    const bytes = Buffer.from(rt.text, "utf8");
    const facetTexts = (rt.facets ?? []).map((facet) => ({
      text: bytes.subarray(facet.index.byteStart, facet.index.byteEnd).toString("utf8"),
      feature: facet.features[0],
    }));
    expect(facetTexts).toEqual([
      { text: "@sandbox-demo.bsky.test", feature: expect.objectContaining({ did: DEMO_BLUESKY.did }) },
      {
        text: "https://example.com/a?b=c",
        feature: expect.objectContaining({ uri: "https://example.com/a?b=c" }),
      },
      { text: "#twin", feature: expect.objectContaining({ tag: "twin" }) },
      { text: "#Check", feature: expect.objectContaining({ tag: "Check" }) },
    ]);

    const image = mediaFile("jpeg", 120_000, 4);
    const uploaded = await agent.uploadBlob(image, { encoding: "image/jpeg" });
    expect(uploaded.data.blob.mimeType).toBe("image/jpeg");
    const created = await agent.post({
      text: rt.text,
      facets: rt.facets,
      langs: ["en"],
      embed: {
        $type: "app.bsky.embed.images",
        images: [{ image: uploaded.data.blob, alt: "a test image", aspectRatio: { width: 4, height: 3 } }],
      },
    });

    const [, , did, collection, rkey] = created.uri.split("/");
    const read = await agent.com.atproto.repo.getRecord({
      repo: did as string,
      collection: collection as string,
      rkey: rkey as string,
    });
    expect(read.data.cid).toBe(created.cid);
    expect(AppBskyFeedPost.validateRecord(read.data.value)).toMatchObject({ success: true });
    expect(() => lexicons.assertValidRecord("app.bsky.feed.post", read.data.value)).not.toThrow();
    expect(read.data.value).toMatchObject({ text: TEXT, facets: rt.facets });

    const listed = await agent.com.atproto.repo.listRecords({
      repo: DEMO_BLUESKY.did,
      collection: "app.bsky.feed.post",
    });
    expect(listed.data.records.map((record) => record.uri)).toEqual([created.uri]);

    const raw = await rawRecord(sandbox.url, created.uri);
    expect(independentCid(raw.value)).toBe(created.cid);
    expect(await recordCid(raw.value)).toBe(created.cid);
    expect(jsonToLex(raw.value)).toEqual(read.data.value);

    const blob = await agent.com.atproto.sync.getBlob({
      did: DEMO_BLUESKY.did,
      cid: uploaded.data.blob.ref.toString(),
    });
    expect(Buffer.from(blob.data).equals(image)).toBe(true);

    await agent.deletePost(created.uri);
    await expect(
      agent.com.atproto.repo.getRecord({
        repo: did as string,
        collection: collection as string,
        rkey: rkey as string,
      }),
    ).rejects.toMatchObject({ error: "RecordNotFound" });
  });

  test("a record the validator refuses is refused by the twin with the validator's message", async () => {
    const agent = await loggedInAgent(sandbox.url, DEMO_BLUESKY);
    await expect(
      agent.post({ text: "x", tags: Array.from({ length: 9 }, (_, index) => `t${index}`) }),
    ).rejects.toMatchObject({
      status: 400,
      error: "InvalidRequest",
      message: "Invalid app.bsky.feed.post record: Record/tags must not have more than 8 elements",
    });
  });

  test("com.atproto.repo.deleteRecord: the post goes (a commit); a record that is not there is no error (no commit)", async () => {
    const agent = await loggedInAgent(sandbox.url, DEMO_BLUESKY);
    const created = await agent.post({ text: "Here for a moment" });
    const target = {
      repo: DEMO_BLUESKY.did,
      collection: "app.bsky.feed.post",
      rkey: new AtUri(created.uri).rkey,
    };
    const deleted = await agent.com.atproto.repo.deleteRecord(target);
    expect(deleted.success).toBe(true);
    expect(deleted.data.commit).toEqual({ cid: expect.stringMatching(/^bafyrei/), rev: expect.any(String) });
    await expect(agent.com.atproto.repo.getRecord(target)).rejects.toMatchObject({ error: "RecordNotFound" });
    // As the PDS (packages/pds/src/api/com/atproto/repo/deleteRecord.ts): "No-op if record already
    // doesn't exist", answered with no commit.
    const again = await agent.com.atproto.repo.deleteRecord(target);
    expect(again.success).toBe(true);
    expect(again.data.commit).toBeUndefined();
    // A repository this PDS does not hold: the PDS's findAccount refusal.
    await expect(
      agent.com.atproto.repo.deleteRecord({ ...target, repo: DEMO_BLUESKY_SELF_HOSTED.did }),
    ).rejects.toMatchObject({ status: 403, error: "AccountNotFound" });
  });

  test("a session resumes, and an expired access token is refreshed by the client on its own", async () => {
    const agent = await loggedInAgent(sandbox.url, DEMO_BLUESKY);
    const session = agent.session;
    if (!session) throw new Error("no session");
    const resumed = new AtpAgent({ service: sandbox.url });
    await resumed.resumeSession(session);
    expect(resumed.did).toBe(DEMO_BLUESKY.did);

    await fetch(
      `${sandbox.url}/_sandbox/tokens/expire`,
      postJson({ platform: "bluesky", account: DEMO_BLUESKY.did }),
    );
    // The control also expires tokens issued within its next second (JWT times are in seconds).
    clock.advance(2000);
    const after = await resumed.com.atproto.server.getSession();
    expect(after.data.did).toBe(DEMO_BLUESKY.did);
    expect(resumed.session?.refreshJwt).not.toBe(session.refreshJwt);
  });

  test("an account on the second PDS: resolved with @atproto/identity through the PLC directory, then signed in there", async () => {
    const entryway = new AtpAgent({ service: sandbox.url });
    const { data } = await entryway.com.atproto.identity.resolveHandle({
      handle: DEMO_BLUESKY_SELF_HOSTED.handle,
    });
    expect(data.did).toBe(DEMO_BLUESKY_SELF_HOSTED.did);

    const resolver = new IdResolver({ plcUrl: sandbox.plcUrl, fetch: globalThis.fetch });
    const identity = await resolver.did.resolveAtprotoData(data.did);
    expect(identity).toMatchObject({ handle: DEMO_BLUESKY_SELF_HOSTED.handle, pds: sandbox.pds2Url });

    await expect(loggedInAgent(sandbox.url, DEMO_BLUESKY_SELF_HOSTED)).rejects.toMatchObject({ status: 401 });
    const agent = await loggedInAgent(identity.pds, DEMO_BLUESKY_SELF_HOSTED);
    expect(agent.pdsUrl?.origin).toBe(sandbox.pds2Url);
    const created = await agent.post({ text: "from a self-hosted PDS" });
    expect(created.uri.startsWith(`at://${DEMO_BLUESKY_SELF_HOSTED.did}/`)).toBe(true);
    const raw = await rawRecord(sandbox.pds2Url, created.uri);
    expect(independentCid(raw.value)).toBe(created.cid);
    expect(AppBskyFeedPost.validateRecord(jsonToLex(raw.value))).toMatchObject({ success: true });
  });
});

import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { interrupt, type Launch, launch, readManifest, waitFor } from "./support/launch.ts";

const PROBE_LINE = "verified when the publisher's workers start: ";

/** What the probe printed: the prefixes the TikTok twin verified when the publisher's workers started. */
function verifiedAtWorkerStart(output: string): string[] {
  const line = output.split("\n").find((text) => text.startsWith(PROBE_LINE));
  if (!line) throw new Error(`the probe printed nothing:\n${output}`);
  return JSON.parse(line.slice(PROBE_LINE.length)) as string[];
}

describe("the TikTok twin knows the publisher's media prefix before the publisher's workers run", () => {
  let dataDir: string | undefined;
  let platform: Launch | undefined;
  afterEach(async () => {
    if (platform) await interrupt(platform);
    if (dataDir) await rm(dataDir, { recursive: true, force: true });
    platform = undefined;
    dataDir = undefined;
  });

  it.for([
    ["on a port of the system's choosing", {}],
    ["behind a public URL", { PUBLISHER_PUBLIC_URL: "https://publisher.example/base" }],
  ] as const)("%s", { timeout: 120_000 }, async ([, extraEnv]) => {
    dataDir = await mkdtemp(join(tmpdir(), "platform-prefix-"));
    const run = launch(dataDir, extraEnv, "apps/local/test/support/probe-platform.ts");
    platform = run;
    await waitFor(() => run.output().includes("slim platform up"), "the probed platform", 100_000);
    const publisher = (await readManifest(dataDir)).services.publisher?.url as string;
    const expected =
      "PUBLISHER_PUBLIC_URL" in extraEnv ? `${extraEnv.PUBLISHER_PUBLIC_URL}/` : `${publisher}/`;
    expect(new URL(publisher).port).not.toBe("3002");
    expect(verifiedAtWorkerStart(run.output())).toEqual([expected]);
  });
});

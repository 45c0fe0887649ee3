/**
 * One memory measurement of the image preflight bench, in a process of its own (so each starts
 * from the same heap and libvips state): `IMAGE_MODE` `plain` (sharp's own resize of the file to
 * 2000 px, JPEG) or `fit` (the publisher's `fitImage` for Bluesky, from its storage), on
 * `IMAGE_COUNT` copies of `IMAGE_FILE` at once. Reports the RSS before, the peak RSS after, and
 * the wall time to the parent, then exits.
 */
import { readFileSync, writeFileSync } from "node:fs";
import { copyFile, mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Readable } from "node:stream";
import sharp from "sharp";
import { fitImage } from "../services/publisher/src/media/fit/fit-image.ts";
import { BLUESKY_IMAGE } from "../services/publisher/src/media/fit/image-profiles.ts";
import { collect } from "../services/publisher/src/media/probe/byte-source.ts";
import { LocalDiskStorage } from "../services/publisher/src/storage/local-disk.ts";

export type ImageChildReport = { rssBefore: number; peakRss: number; ms: number; outputBytes: number[] };

const mode = process.env.IMAGE_MODE ?? "fit";
const file = process.env.IMAGE_FILE ?? "";
const count = Number(process.env.IMAGE_COUNT ?? 1);

const dir = await mkdtemp(join(tmpdir(), "bench-image-"));
try {
  const storage = new LocalDiskStorage({
    dir,
    publicBaseUrl: () => "http://127.0.0.1",
    credentials: { accessKeyId: "bench", secretAccessKey: "bench-secret", region: "us-east-1" },
  });
  const bytes = await readFile(file);
  const paths = Array.from({ length: count }, (_, index) => `med_bench${index}.jpg`);
  const files = paths.map((path) => join(dir, `plain-${path}`));
  for (const [index, path] of paths.entries()) {
    await storage.write(path, Readable.from([bytes]), {
      contentType: "image/jpeg",
      expectedBytes: bytes.length,
    });
    await copyFile(file, files[index] as string);
  }
  // Loaded and warm: one small image through the same code, so neither side pays sharp's start.
  const tiny = await sharp({ create: { width: 64, height: 64, channels: 3, background: "#888" } })
    .jpeg()
    .toBuffer();
  await sharp(tiny).resize(32).jpeg().toBuffer();
  await storage.write("med_warm.jpg", Readable.from([tiny]), {
    contentType: "image/jpeg",
    expectedBytes: tiny.length,
  });
  await fitImage(storage, sourceOf(storage, "med_warm.jpg"), BLUESKY_IMAGE);
  const rssBefore = resetPeak();
  const started = performance.now();
  const outputBytes =
    mode === "plain"
      ? await Promise.all(
          files.map(
            async (path) =>
              (await sharp(path).resize(2000, 2000, { fit: "inside" }).jpeg().toBuffer()).length,
          ),
        )
      : await Promise.all(
          paths.map(async (path) => (await fitImage(storage, sourceOf(storage, path), BLUESKY_IMAGE)).size),
        );
  const ms = performance.now() - started;
  const peakRss = peakSinceReset();
  process.send?.({ rssBefore, peakRss, ms, outputBytes } satisfies ImageChildReport);
} finally {
  await rm(dir, { recursive: true, force: true });
}
if (process.connected) process.disconnect();

/**
 * Resets the process's peak RSS (Linux: `5` to `/proc/self/clear_refs` sets VmHWM to the current
 * RSS), so the peak read afterwards is the work's alone; returns the RSS now.
 */
function resetPeak(): number {
  try {
    writeFileSync("/proc/self/clear_refs", "5");
  } catch {
    // Not Linux: the peak is the process's since it started (an overestimate, never an underestimate).
  }
  return process.memoryUsage().rss;
}

/** The peak RSS since {@link resetPeak} (VmHWM), or the process's peak where there is none. */
function peakSinceReset(): number {
  try {
    const kb = /VmHWM:\s+(\d+)\s+kB/.exec(readFileSync("/proc/self/status", "utf8"))?.[1];
    if (kb) return Number(kb) * 1024;
  } catch {
    // As above.
  }
  return process.resourceUsage().maxRSS * 1024;
}

function sourceOf(storage: LocalDiskStorage, path: string) {
  return { path, load: async (maxBytes: number) => collect((await storage.read(path)).stream, maxBytes) };
}

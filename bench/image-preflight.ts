import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Readable } from "node:stream";
import sharp from "sharp";
import { FIT_CONCURRENCY, fitImage } from "../services/publisher/src/media/fit/fit-image.ts";
import { BLUESKY_IMAGE } from "../services/publisher/src/media/fit/image-profiles.ts";
import { collect } from "../services/publisher/src/media/probe/byte-source.ts";
import { LocalDiskStorage } from "../services/publisher/src/storage/local-disk.ts";
import type { ImageChildReport } from "./image-preflight-child.ts";
import { forkServer, stopServer } from "./lib.ts";

const MB = 1024 * 1024;
/** Timed rounds of each side, alternating (after one warm-up round each). */
const ROUNDS = Number(process.env.BENCH_IMAGE_ROUNDS ?? 11);
const AT_ONCE = 8;
const TARGET_TIME_RATIO = 1.2;
const TARGET_RSS_MB = 64;

const out = (text: string) => process.stdout.write(`${text}\n`);
const median = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2
    ? (sorted[middle] as number)
    : ((sorted[middle - 1] as number) + (sorted[middle] as number)) / 2;
};

/**
 * A 12-megapixel photo-like JPEG (4000 × 3000, Gaussian noise over a colour, quality 85): noise
 * keeps JPEG from compressing it much better than a camera photo (3–5 MB).
 */
async function photo(): Promise<Buffer> {
  return sharp({
    create: {
      width: 4000,
      height: 3000,
      channels: 3,
      background: { r: 110, g: 135, b: 160 },
      noise: { type: "gaussian", mean: 128, sigma: 18 },
    },
  })
    .jpeg({ quality: 85 })
    .toBuffer();
}

/** One memory measurement in a process of its own. */
async function measureIn(mode: "plain" | "fit", file: string, count: number): Promise<ImageChildReport> {
  const { message, child } = await forkServer<ImageChildReport>("./image-preflight-child.ts", 300_000, {
    IMAGE_MODE: mode,
    IMAGE_FILE: file,
    IMAGE_COUNT: String(count),
  });
  await stopServer(child);
  return message;
}

/**
 * The image preflight: a 12-megapixel JPEG made to fit Bluesky by the publisher (`fitImage`:
 * read from its storage, hashed for its derived path, decoded with EXIF orientation, shrunk to
 * 2000 px, JPEG within 1,000,000 bytes, written beside the original) against sharp's own plain
 * resize of the same file to 2000 px in the same run: time per image (median of alternating
 * rounds, each from a fresh source path so no derived copy is reused), and the peak RSS growth of
 * a fresh process for one image and for 8 at once. `BENCH_IMAGE_ROUNDS` (11) sets the rounds.
 */
export async function benchImagePreflight(): Promise<void> {
  const dir = await mkdtemp(join(tmpdir(), "bench-image-preflight-"));
  try {
    const bytes = await photo();
    const file = join(dir, "photo.jpg");
    await writeFile(file, bytes);
    out(
      `\nImage preflight (a 4000 × 3000 JPEG of ${(bytes.length / MB).toFixed(2)} MiB made to fit Bluesky)`,
    );
    const storage = new LocalDiskStorage({
      dir: join(dir, "store"),
      publicBaseUrl: () => "http://127.0.0.1",
      credentials: { accessKeyId: "bench", secretAccessKey: "bench-secret", region: "us-east-1" },
    });
    const plainMs: number[] = [];
    const fitMs: number[] = [];
    let plainBytes = 0;
    let fitted = { size: 0, width: 0, height: 0 };
    for (let round = -1; round < ROUNDS; round += 1) {
      const path = `med_round${round + 1}.jpg`;
      await storage.write(path, Readable.from([bytes]), {
        contentType: "image/jpeg",
        expectedBytes: bytes.length,
      });
      const plain = async () => {
        const started = performance.now();
        plainBytes = (await sharp(file).resize(2000, 2000, { fit: "inside" }).jpeg().toBuffer()).length;
        return performance.now() - started;
      };
      const fit = async () => {
        const started = performance.now();
        fitted = await fitImage(
          storage,
          { path, load: async (maxBytes) => collect((await storage.read(path)).stream, maxBytes) },
          BLUESKY_IMAGE,
        );
        return performance.now() - started;
      };
      // Alternate which side goes first, so neither always runs on a warmer cache.
      const [first, second] = round % 2 === 0 ? [plain, fit] : [fit, plain];
      const a = await first();
      const b = await second();
      if (round < 0) continue;
      (first === plain ? plainMs : fitMs).push(a);
      (second === plain ? plainMs : fitMs).push(b);
    }
    const timeRatio = median(fitMs) / median(plainMs);
    out(
      `  time per image, median of ${ROUNDS}: fitImage ${median(fitMs).toFixed(0)} ms (min ${Math.min(...fitMs).toFixed(0)}), sharp resize ${median(plainMs).toFixed(0)} ms (min ${Math.min(...plainMs).toFixed(0)}): ${timeRatio.toFixed(2)}×`,
    );
    out(
      `  output: fitImage ${fitted.size} bytes ${fitted.width} × ${fitted.height}; sharp resize (quality 80) ${plainBytes} bytes`,
    );
    const rows: Array<[string, ImageChildReport]> = [
      ["sharp resize, 1 image", await measureIn("plain", file, 1)],
      ["fitImage, 1 image", await measureIn("fit", file, 1)],
      [`sharp resize, ${AT_ONCE} at once`, await measureIn("plain", file, AT_ONCE)],
      [
        `fitImage, ${AT_ONCE} at once (${FIT_CONCURRENCY} decoding at a time)`,
        await measureIn("fit", file, AT_ONCE),
      ],
    ];
    for (const [name, report] of rows) {
      const growth = (report.peakRss - report.rssBefore) / MB;
      out(
        `  peak RSS growth, ${name.padEnd(44)} ${growth.toFixed(1).padStart(6)} MB   (${report.ms.toFixed(0)} ms, ${report.outputBytes.length} output(s) ≤ ${Math.max(...report.outputBytes)} bytes)`,
      );
    }
    const single = rows[1]?.[1] as ImageChildReport;
    const plainSingle = rows[0]?.[1] as ImageChildReport;
    const many = rows[3]?.[1] as ImageChildReport;
    const singleRatio =
      (single.peakRss - single.rssBefore) / Math.max(1, plainSingle.peakRss - plainSingle.rssBefore);
    out(`  peak RSS growth of one image against sharp's resize: ${singleRatio.toFixed(2)}×`);
    const manyGrowth = (many.peakRss - many.rssBefore) / MB;
    out(
      `  time ≤ ${TARGET_TIME_RATIO} × sharp's resize: ${timeRatio <= TARGET_TIME_RATIO ? "met" : "NOT met"} (${timeRatio.toFixed(2)}×)`,
    );
    out(
      `  RSS growth ≤ ${TARGET_RSS_MB} MB with ${AT_ONCE} at once: ${manyGrowth <= TARGET_RSS_MB ? "met" : "NOT met"} (${manyGrowth.toFixed(1)} MB)`,
    );
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

import { join } from "node:path";
import { fileURLToPath } from "node:url";

/** Artifact cache shared by the test files (gitignored `.data/`). */
export const TEST_CACHE_DIR = join(fileURLToPath(new URL("..", import.meta.url)), ".data", "test-cache");

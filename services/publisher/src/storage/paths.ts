/** A storage path: flat, URL-safe, with an extension (`med_3kTq….mp4`); nothing that could climb out of a folder. */
const STORAGE_PATH = /^[A-Za-z0-9][A-Za-z0-9_-]{0,127}(\.[a-z0-9]{1,8})?$/;

export const isStoragePath = (path: string): boolean => STORAGE_PATH.test(path);

/** The path after `prefix` in `url` when `url` is `prefix` + a storage path, else undefined. */
export function pathAfter(prefix: string, url: string): string | undefined {
  if (!url.startsWith(prefix)) return undefined;
  const rest = url.slice(prefix.length);
  return isStoragePath(rest) ? rest : undefined;
}

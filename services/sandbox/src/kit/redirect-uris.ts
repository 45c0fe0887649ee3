const LOOPBACK_HOSTS = new Set(["127.0.0.1", "localhost", "[::1]"]);

/**
 * True when `candidate` is one of the registered redirect URIs: equal as a string, or, for a
 * registered loopback URI whose port is `*`, equal in everything but the port (what Google allows
 * for loopback redirects and TikTok's desktop apps register). A fragment is never allowed.
 */
export function isRegisteredRedirectUri(candidate: string, registered: readonly string[]): boolean {
  let url: URL;
  try {
    url = new URL(candidate);
  } catch {
    return false;
  }
  if (url.hash || candidate.includes("#")) return false;
  return registered.some((pattern) => {
    if (pattern === candidate) return true;
    const wildcard = /^(https?):\/\/([^/:]+):\*(\/.*)?$/.exec(pattern);
    if (!wildcard || !LOOPBACK_HOSTS.has(wildcard[2] ?? "")) return false;
    const [, scheme, host, path = "/"] = wildcard;
    return (
      url.protocol === `${scheme}:` &&
      url.hostname === host &&
      url.port !== "" &&
      `${url.pathname}${url.search}` === path
    );
  });
}

/** The redirect URI with the answer's parameters added (`code` and `state`, or `error`). */
export function redirectWith(redirectUri: string, params: Record<string, string | undefined>): string {
  const url = new URL(redirectUri);
  for (const [name, value] of Object.entries(params))
    if (value !== undefined) url.searchParams.set(name, value);
  return url.toString();
}

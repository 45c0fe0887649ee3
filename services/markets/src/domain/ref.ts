/**
 * Resolving a `ref` (what a user pastes: a site URL, a slug, an id, a condition id or a token
 * id) to one event. Pure: classification is syntax only; lookups go through a {@link RefIndex}.
 */

/** Longest ref accepted. */
export const MAX_REF_LENGTH = 512;
/** Printable ASCII and any non-control character, no whitespace other than a plain space. */
export const PRINTABLE_REF = /^[^\p{Cc}\p{Cf}\p{Zl}\p{Zp}]+$/u;

/** A condition id: `0x` and 64 hex digits, in any letter case (the prefix too); kept in lower case. */
export const CONDITION_ID = /^0x[0-9a-f]{64}$/i;
/** Token ids are 256-bit integers printed in decimal (about 70–78 digits); 20 digits or more. */
const TOKEN_ID = /^\d{20,80}$/;
/** Event and market ids are small integers printed as text. */
const NUMERIC_ID = /^\d{1,19}$/;
const SLUG = /^[a-z0-9]+(?:-[a-z0-9]+)*$/;
const SITE_HOST = String.raw`(?:www\.)?polymarket\.com`;
/**
 * The site's origin as a user pastes it: https, http or no scheme; a port only when it is the
 * scheme's default, spelled as such (`:443` on https, `:80` on http), which names the same URL.
 */
const SITE_URL = new RegExp(
  `^(?:https://${SITE_HOST}(?::443)?|http://${SITE_HOST}(?::80)?|${SITE_HOST})(?=[/?#]|$)`,
  "i",
);
/** The site's host followed by a port: one {@link SITE_URL} does not take. */
const SITE_WITH_PORT = new RegExp(`^(?:[a-z][a-z0-9+.-]*://)?${SITE_HOST}:`, "i");
const LOCALE = /^[a-z]{2}$/i;

/** What a ref is, by its syntax alone. */
export type RefKind =
  | { kind: "event_url"; eventSlug: string; marketSlug?: string }
  | { kind: "market_url"; marketSlug: string }
  | { kind: "condition_id"; conditionId: string }
  | { kind: "token_id"; tokenId: string }
  | { kind: "numeric_id"; id: string }
  | { kind: "slug"; slug: string }
  | { kind: "malformed"; reason: string };

function slugSegment(segment: string | undefined): string | undefined {
  if (segment === undefined) return undefined;
  let decoded: string;
  try {
    decoded = decodeURIComponent(segment).toLowerCase();
  } catch {
    return undefined;
  }
  return SLUG.test(decoded) ? decoded : undefined;
}

function classifyUrl(ref: string): RefKind {
  const rest = ref.replace(SITE_URL, "").replace(/[?#].*$/s, "");
  const segments = rest.split("/").filter((segment) => segment !== "");
  if (segments[0] !== undefined && LOCALE.test(segments[0]) && segments.length > 1) segments.shift();
  const [rawSection, first, second, ...extra] = segments;
  // Path sections in any letter case, as slugs are (`/EVENT/<slug>`).
  const section = rawSection?.toLowerCase();
  const malformed = {
    kind: "malformed",
    reason: "A Polymarket URL must be /event/<slug>[/<market-slug>] or /market/<slug>.",
  } as const;
  if (extra.length > 0) return malformed;
  if (section === "event") {
    const eventSlug = slugSegment(first);
    if (eventSlug === undefined) return malformed;
    if (second === undefined) return { kind: "event_url", eventSlug };
    const marketSlug = slugSegment(second);
    return marketSlug === undefined ? malformed : { kind: "event_url", eventSlug, marketSlug };
  }
  if (section === "market" && second === undefined) {
    const marketSlug = slugSegment(first);
    return marketSlug === undefined ? malformed : { kind: "market_url", marketSlug };
  }
  return malformed;
}

/** Classifies a ref by syntax. The caller has already refused empty, too long or non-printable refs. */
export function classifyRef(raw: string): RefKind {
  const ref = raw.trim();
  if (ref === "") return { kind: "malformed", reason: "The ref is empty." };
  if (SITE_URL.test(ref)) return classifyUrl(ref);
  if (SITE_WITH_PORT.test(ref)) {
    return {
      kind: "malformed",
      reason: "A polymarket.com URL takes no port but its scheme's default (:443 on https, :80 on http).",
    };
  }
  if (/^[a-z][a-z0-9+.-]*:\/\//i.test(ref)) {
    return { kind: "malformed", reason: "Only polymarket.com URLs are understood." };
  }
  if (/^0x/i.test(ref)) {
    return CONDITION_ID.test(ref)
      ? { kind: "condition_id", conditionId: ref.toLowerCase() }
      : { kind: "malformed", reason: "A condition id is 0x followed by 64 hex digits." };
  }
  if (TOKEN_ID.test(ref)) return { kind: "token_id", tokenId: ref };
  if (NUMERIC_ID.test(ref)) return { kind: "numeric_id", id: ref };
  const slug = ref.toLowerCase();
  if (SLUG.test(slug)) return { kind: "slug", slug };
  return {
    kind: "malformed",
    reason: "Not a Polymarket URL, slug, numeric id, condition id (0x + 64 hex) or token id.",
  };
}

/** Where each kind of key leads: to the id of the event that holds it. */
export type RefIndex = {
  eventBySlug: ReadonlyMap<string, string>;
  eventById: ReadonlyMap<string, string>;
  marketSlugToEvent: ReadonlyMap<string, string>;
  marketIdToEvent: ReadonlyMap<string, string>;
  conditionIdToEvent: ReadonlyMap<string, string>;
  tokenIdToEvent: ReadonlyMap<string, string>;
};

/** How a ref matched, for logs and tests. */
export type MatchedBy = "event_slug" | "market_slug" | "event_id" | "market_id" | "condition_id" | "token_id";

export type RefResolution =
  | { kind: "found"; eventId: string; matchedBy: MatchedBy }
  | { kind: "not_found" }
  | { kind: "malformed"; reason: string };

type Attempt = [MatchedBy, ReadonlyMap<string, string>, string];

function firstMatch(attempts: Attempt[]): RefResolution {
  for (const [matchedBy, map, key] of attempts) {
    const eventId = map.get(key);
    if (eventId !== undefined) return { kind: "found", eventId, matchedBy };
  }
  return { kind: "not_found" };
}

/**
 * Resolves a ref to an event id. Precedence where a key could name two things: an event
 * slug before a market slug, an event id before a market id. A URL's path decides first:
 * `/event/<slug>` looks up the event slug (then, when given, the market slug after it);
 * `/market/<slug>` looks up the market slug, then an event slug of that name.
 */
export function resolveRef(ref: string, index: RefIndex): RefResolution {
  const kind = classifyRef(ref);
  switch (kind.kind) {
    case "malformed":
      return kind;
    case "event_url":
      return firstMatch([
        ["event_slug", index.eventBySlug, kind.eventSlug],
        ...(kind.marketSlug ? [["market_slug", index.marketSlugToEvent, kind.marketSlug] as Attempt] : []),
      ]);
    case "market_url":
      return firstMatch([
        ["market_slug", index.marketSlugToEvent, kind.marketSlug],
        ["event_slug", index.eventBySlug, kind.marketSlug],
      ]);
    case "condition_id":
      return firstMatch([["condition_id", index.conditionIdToEvent, kind.conditionId]]);
    case "token_id":
      return firstMatch([["token_id", index.tokenIdToEvent, kind.tokenId]]);
    case "numeric_id":
      return firstMatch([
        ["event_id", index.eventById, kind.id],
        ["market_id", index.marketIdToEvent, kind.id],
      ]);
    case "slug":
      return firstMatch([
        ["event_slug", index.eventBySlug, kind.slug],
        ["market_slug", index.marketSlugToEvent, kind.slug],
      ]);
  }
}

import type { PGlite } from "@electric-sql/pglite";
import { normalisedSql, queryMessage, sqlTexts } from "./wire-protocol.ts";

/**
 * PGlite has one session, shared by the owner and every connection; a setting one of them makes
 * (`SET DateStyle`, `bytea_output`, `ROLE`, …) would change what the others get, the owner's own
 * result parsing included. So a connection's settings live with the connection: saved and reset
 * when it lets the session go, put back when it takes it again.
 */

/** A statement that begins with SET, RESET or DISCARD, or any call of set_config, PREPARE or EXECUTE. */
const CHANGES_A_SETTING = /(?:^|;) ?(?:set|reset|discard)\b|set_config|\bexecute\b/;

/** Whether a batch may change a setting: its text says so, or it runs a named statement. */
export function mayChangeSettings(batch: Buffer): boolean {
  return (
    sqlTexts(batch).some((sql) => CHANGES_A_SETTING.test(normalisedSql(sql))) || runsNamedStatement(batch)
  );
}

/** A Bind of a named prepared statement (its text was checked when it was parsed, perhaps in another cycle). */
function runsNamedStatement(batch: Buffer): boolean {
  for (let at = 0; at + 5 <= batch.length; at += 1 + batch.readInt32BE(at + 1)) {
    if (batch[at] === 0x42) {
      const portalEnd = batch.indexOf(0, at + 5);
      if (portalEnd >= 0 && batch[portalEnd + 1] !== 0) return true;
    }
  }
  return false;
}

/**
 * Settings PostgreSQL reports to the client when they change (ParameterStatus): seen in a batch's
 * answer, they mean the batch changed one however it was spelled.
 */
const REPORTED = [
  "DateStyle",
  "IntervalStyle",
  "TimeZone",
  "client_encoding",
  "search_path",
  "standard_conforming_strings",
  "session_authorization",
  "default_transaction_read_only",
  "is_superuser",
].map((name) => Buffer.from(`${name}\0`));

export function reportsASetting(output: Buffer): boolean {
  return REPORTED.some((name) => output.includes(name));
}

/** A connection's own settings: name and value, as `pg_settings` shows them. */
export type SessionSettings = [name: string, value: string][];

/** `pg_settings` leaves out the role a `SET ROLE` took: read it apart. */
const OWN_SETTINGS =
  "SELECT name, setting FROM pg_settings WHERE source = 'session' " +
  "UNION ALL SELECT 'role', current_user::text WHERE current_user <> session_user";
/**
 * Back to the owner's settings: `RESET ALL` leaves the role and the session authorization, and
 * PGlite ignores `SET SESSION AUTHORIZATION DEFAULT`: its user is named.
 */
const BASELINE = "SET SESSION AUTHORIZATION postgres; RESET ALL";

const literal = (text: string) => `'${text.replaceAll("'", "''")}'`;

/** Runs one simple-protocol statement; the session must be held. */
async function run(pg: PGlite, sql: string) {
  return pg._runExclusiveQuery(() => pg.execProtocol(queryMessage(sql), { throwOnError: false }));
}

/** Reads the settings made since the baseline, and returns the session to the baseline. */
export async function saveAndReset(pg: PGlite): Promise<SessionSettings> {
  const { messages } = await run(pg, OWN_SETTINGS);
  const saved: SessionSettings = [];
  for (const message of messages) {
    if (message.name === "dataRow") {
      const [name, value] = (message as unknown as { fields: (string | null)[] }).fields;
      if (name && value !== null && value !== undefined) saved.push([name, value]);
    }
  }
  await run(pg, BASELINE);
  return saved;
}

/** Returns the session to the baseline. */
export async function resetSettings(pg: PGlite): Promise<void> {
  await run(pg, BASELINE);
}

/** Puts a connection's saved settings back (one that no longer applies is skipped). */
export async function restoreSettings(pg: PGlite, saved: SessionSettings): Promise<void> {
  for (const [name, value] of saved)
    await run(pg, `SELECT set_config(${literal(name)}, ${literal(value)}, false)`);
}

import type { Database } from "@app/db";
import { type CliCommand, type CliOptions, CliUsageError, requiredOption } from "@app/runtime";
import { isTimeZone } from "../domain/queue-slots.ts";
import { parseScopes, SCOPES } from "../domain/scopes.ts";
import {
  createAccount,
  createApiKey,
  findAccount,
  listApiKeys,
  revokeApiKey,
  setQueueSettings,
} from "../store/accounts.ts";

function timeZone(options: CliOptions): string | undefined {
  const zone = options["time-zone"]?.trim();
  if (zone !== undefined && !isTimeZone(zone))
    throw new CliUsageError(`--time-zone ${zone} is not an IANA time zone.`);
  return zone;
}

async function accountOf(db: Database, options: CliOptions) {
  const id = requiredOption(options, "account");
  const account = await findAccount(db, id);
  if (!account) throw new CliUsageError(`There is no account ${id}.`);
  return account;
}

function scopes(options: CliOptions) {
  try {
    return parseScopes(options.scopes);
  } catch (error) {
    throw new CliUsageError((error as Error).message);
  }
}

function daysList(text: string): number[] {
  const days = text.split(",").map((part) => part.trim());
  if (days.some((day) => !/^[0-6]$/.test(day))) {
    throw new CliUsageError("--allowed-days is a comma-separated list of 0 (Sunday) … 6 (Saturday).");
  }
  return [...new Set(days.map(Number))].sort((a, b) => a - b);
}

/** Every command of `npm run publisher --`, by its two words. */
export const COMMANDS: Record<string, CliCommand> = {
  "accounts create": {
    options: ["name", "time-zone?"],
    help: "an account; --time-zone (IANA, default UTC) is where its queue slots are laid out",
    run: async ({ db, options }) => {
      const name = requiredOption(options, "name");
      if (name.length > 100) throw new CliUsageError("--name has at most 100 characters.");
      return { account: await createAccount(db, { name, timeZone: timeZone(options) }) };
    },
  },
  "accounts schedule": {
    options: ["account", "posts-per-day?", "allowed-days?", "time-zone?"],
    help: "the account's smart schedule: --posts-per-day 1-3, --allowed-days 1,2,3,4,5 (0 = Sunday), --time-zone",
    run: async ({ db, options }) => {
      const account = await accountOf(db, options);
      const perDay = options["posts-per-day"]?.trim() ?? "1";
      if (!/^[123]$/.test(perDay)) throw new CliUsageError("--posts-per-day is 1, 2 or 3.");
      const settings = {
        postsPerDay: Number(perDay) as 1 | 2 | 3,
        allowedDays: daysList(options["allowed-days"] ?? "0,1,2,3,4,5,6"),
        timeZone: timeZone(options) ?? account.timeZone,
      };
      await setQueueSettings(db, account.id, settings);
      return { account: account.id, schedule: settings };
    },
  },
  "keys create": {
    options: ["account", "scopes?", "label?"],
    help: `an API key, printed once (only its SHA-256 is stored); --scopes a comma list of ${SCOPES.join(", ")} (default all)`,
    run: async ({ db, options }) => {
      const account = await accountOf(db, options);
      const granted = scopes(options);
      const issued = await createApiKey(db, {
        accountId: account.id,
        scopes: granted,
        label: options.label?.trim(),
      });
      return {
        ...issued,
        scopes: granted,
        note: "Shown once: store it now. Send it as the x-api-key header.",
      };
    },
  },
  "keys list": {
    options: ["account"],
    help: "an account's keys: ids, labels, scopes, dates (never the keys)",
    run: async ({ db, options }) => ({ keys: await listApiKeys(db, (await accountOf(db, options)).id) }),
  },
  "keys revoke": {
    options: ["key"],
    help: "revokes a key by its id (key_…); requests with it get 401 from then on",
    run: async ({ db, clock, options }) => {
      const keyId = requiredOption(options, "key");
      if (!(await revokeApiKey(db, keyId, clock.now())))
        throw new CliUsageError(`There is no active key ${keyId}.`);
      return { revoked: keyId };
    },
  },
};

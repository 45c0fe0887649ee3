import type { Database } from "@app/db";
import { type CliCommand, type CliOptions, CliUsageError, requiredOption } from "@app/runtime";
import { type KeyPolicy, NO_POLICY, policyView } from "../domain/key-policy.ts";
import { formatUsd, parseUsd } from "../domain/money.ts";
import { AccountStore, type GatewayAccount } from "../store/accounts.ts";
import { changeKeyPolicy, KeyPolicyStore, readKeyPolicy } from "../store/key-policies.ts";
import { credit, ledgerOf } from "../store/ledger.ts";
import { RunStore } from "../store/runs.ts";
import { POLICY_OPTIONS, policyChangeOf, setsPolicy } from "./key-policy-options.ts";

function amount(options: CliOptions, name: string): bigint {
  const micro = parseUsd(requiredOption(options, name));
  if (micro === undefined || micro === 0n) {
    throw new CliUsageError(
      `--${name} must be a USD amount above zero with at most 6 decimals, like 25 or 0.50.`,
    );
  }
  return micro;
}

async function accountOf(db: Database, options: CliOptions): Promise<GatewayAccount> {
  const id = requiredOption(options, "account");
  const account = await new AccountStore(db).get(id);
  if (!account) throw new CliUsageError(`There is no account ${id}.`);
  return account;
}

/** The policy of an active key, or undefined when there is none. */
async function activePolicy(db: Database, keyId: string): Promise<KeyPolicy | undefined> {
  const [key] = await db.query("SELECT 1 FROM gateway.api_keys WHERE id = $1 AND revoked_at IS NULL", [
    keyId,
  ]);
  return key ? readKeyPolicy(db, keyId) : undefined;
}

const accountView = (account: GatewayAccount) => ({
  id: account.id,
  name: account.name,
  balance: formatUsd(account.balanceMicro),
  createdAt: account.createdAt.toISOString(),
});

/** Every command of `npm run gateway --`, by its words. */
export const COMMANDS: Record<string, CliCommand> = {
  "accounts create": {
    options: ["name", "credit?"],
    help: "a gateway account; --credit tops it up at once (USD, e.g. 25)",
    run: async ({ db, options }) => {
      const name = requiredOption(options, "name");
      if (name.length > 100) throw new CliUsageError("--name has at most 100 characters.");
      const initial = options.credit === undefined ? 0n : amount(options, "credit");
      const account = await new AccountStore(db).create(name);
      if (initial > 0n) await credit(db, account.id, initial, "initial credit");
      return { account: accountView((await new AccountStore(db).get(account.id)) ?? account) };
    },
  },
  "accounts list": {
    options: [],
    help: "every account with its balance",
    run: async ({ db }) => ({ accounts: (await new AccountStore(db).list()).map(accountView) }),
  },
  "accounts settings": {
    options: ["account", "keep-run-output"],
    help: "--keep-run-output true keeps the account's run outputs from now on (shown by GET /v1/runs/{id}; false, the default, keeps none)",
    run: async ({ db, options }) => {
      const value = requiredOption(options, "keep-run-output");
      if (value !== "true" && value !== "false") {
        throw new CliUsageError("--keep-run-output must be true or false.");
      }
      const account = await accountOf(db, options);
      await new AccountStore(db).setKeepRunOutput(account.id, value === "true");
      return { account: account.id, keepRunOutput: value === "true" };
    },
  },
  "keys create": {
    options: ["account", "label?", ...POLICY_OPTIONS],
    help: "a gateway key, printed once: only its SHA-256 hash is stored; with a policy, as `keys policy` sets it",
    run: async ({ db, options }) => {
      const account = await accountOf(db, options);
      const change = policyChangeOf(options);
      // The key and its policy are written together: no moment exists where the key runs unlimited.
      const { issued, policy } = await db.transaction(async (tx) => {
        const issued = await new AccountStore(tx).issueKey(account.id, options.label?.trim() ?? "");
        const policy = setsPolicy(change) ? await changeKeyPolicy(tx, issued.id, change) : undefined;
        return { issued, policy };
      });
      return {
        ...issued,
        policy: policyView(policy ?? NO_POLICY),
        note: "Shown once: store it now. Send it as `Authorization: Bearer <key>`.",
      };
    },
  },
  "keys list": {
    options: ["account"],
    help: "an account's keys: ids, prefixes, labels, dates (never the keys)",
    run: async ({ db, options }) => ({
      keys: await new AccountStore(db).listKeys((await accountOf(db, options)).id),
    }),
  },
  "keys revoke": {
    options: ["key"],
    help: "revokes a key by its id (key_…); runs with it get 401 within a second (the gateway trusts a valid key from memory for 1 s)",
    run: async ({ db, clock, options }) => {
      const keyId = requiredOption(options, "key");
      if (!(await new AccountStore(db).revokeKey(keyId, clock.now()))) {
        throw new CliUsageError(`There is no active key ${keyId}.`);
      }
      return { revoked: keyId };
    },
  },
  "keys policy": {
    options: ["key", ...POLICY_OPTIONS],
    help: 'shows a key\'s policy and today\'s spend, or changes it: --providers markets,shop (all: every tool), --tools "provider endpoint METHOD,…", --daily-cap USD|none, --tool-caps "provider endpoint METHOD=USD,…"|none, --rate N|default; running gateways apply it within a second',
    run: async ({ db, options }) => {
      const keyId = requiredOption(options, "key");
      const change = policyChangeOf(options);
      const policies = new KeyPolicyStore(db);
      const policy = setsPolicy(change)
        ? await policies.change(keyId, change)
        : await activePolicy(db, keyId);
      if (!policy) throw new CliUsageError(`There is no active key ${keyId}.`);
      const spent = await policies.spentToday(keyId);
      return {
        key: keyId,
        policy: policyView(policy),
        spentToday: {
          day: spent.day,
          total: formatUsd(spent.totalMicro),
          tools: Object.fromEntries(
            Object.entries(spent.toolsMicro).map(([tool, micro]) => [tool, formatUsd(micro)]),
          ),
        },
      };
    },
  },
  credit: {
    options: ["account", "amount", "note?"],
    help: "adds USD to an account's balance (a ledger row)",
    run: async ({ db, options }) => {
      const account = await accountOf(db, options);
      const balance = await credit(
        db,
        account.id,
        amount(options, "amount"),
        options.note?.trim() || undefined,
      );
      return { account: account.id, balance: formatUsd(balance ?? 0n) };
    },
  },
  usage: {
    options: ["account", "limit?"],
    help: "an account's balance, latest runs and ledger (--limit rows, default 20)",
    run: async ({ db, options }) => {
      const account = await accountOf(db, options);
      const text = options.limit?.trim() ?? "20";
      if (!/^\d{1,4}$/.test(text) || Number(text) < 1 || Number(text) > 1000) {
        throw new CliUsageError("--limit must be a whole number from 1 to 1000.");
      }
      const limit = Number(text);
      const runs = await new RunStore(db).recent(account.id, limit);
      const ledger = await ledgerOf(db, account.id, limit);
      return {
        account: accountView(account),
        runs: runs.map((run) => ({ ...run, cost: formatUsd(run.costMicro), costMicro: undefined })),
        ledger: ledger.map((entry) => ({
          ...entry,
          amount: formatUsd(entry.amountMicro),
          balanceAfter: formatUsd(entry.balanceAfterMicro),
          amountMicro: undefined,
          balanceAfterMicro: undefined,
        })),
      };
    },
  },
};

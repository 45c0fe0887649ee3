/**
 * Bumped whenever this process moves money (a credit, a charge, a refund), so that every
 * {@link BalanceView} of the process forgets what it saw: the next free run reads the balance.
 */
let changes = 0;

/** Tells every balance view of this process that a balance changed. */
export function noteBalanceChange(): void {
  changes += 1;
}

type Seen = { balanceMicro: bigint; changes: number };

/**
 * The balance of each account as this instance last saw it: read with every key lookup (at
 * least once a second per key in use, see `KeyCache`) and from every statement that moves money
 * here. A free run shows it in its envelope instead of reading the database. A credit, charge or
 * refund made in this process is seen at once (the view forgets, the next free run reads the
 * database); one made by another instance or process (the CLI's `credit`) within a second.
 * Nothing is ever decided on it: a priced run is charged by the database's conditional debit.
 */
export class BalanceView {
  private readonly balances = new Map<string, Seen>();

  observe(accountId: string, balanceMicro: bigint): void {
    this.balances.set(accountId, { balanceMicro, changes });
  }

  /** The balance last seen, unless money moved in this process since. */
  get(accountId: string): bigint | undefined {
    const seen = this.balances.get(accountId);
    return seen && seen.changes === changes ? seen.balanceMicro : undefined;
  }
}

/** The key the keyed bench server accepts and the bench sends. */
export const BENCH_KEY = "bk_0123456789abcdefghijklmnopqrstuvwxyzABCDEFG";

/** Where the CLI writes: `out` and `err` take whole lines; `write` streams text to stdout as is. */
export type Io = {
  out(line: string): void;
  err(line: string): void;
  write(text: string): void;
};

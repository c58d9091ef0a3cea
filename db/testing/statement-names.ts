// Which named (prepared) statements a pool sent during a test: how the runtime's tests see that
// calls were grouped into one statement or folded into another. The pool's own query is put back
// when the test finishes, pass or fail.
import type pg from "pg";
import { onTestFinished } from "vitest";

export type StatementWatch = {
  /** How many times the statement of this name was sent. */
  count: (name: string) => number;
  /** Every name sent, in order. */
  names: () => readonly string[];
  /** Counts of `names`, for one toMatchObject. */
  counts: (names: readonly string[]) => Record<string, number>;
};

export function watchNamedStatements(pool: pg.Pool): StatementWatch {
  const sent: string[] = [];
  const original = pool.query;
  pool.query = ((config: unknown, ...rest: unknown[]) => {
    const name = (config as { name?: string } | undefined)?.name;
    if (name) sent.push(name);
    return (original as (...a: unknown[]) => unknown).call(pool, config, ...rest);
  }) as typeof pool.query;
  onTestFinished(() => {
    pool.query = original;
  });
  const count = (name: string) => sent.filter((n) => n === name).length;
  return {
    count,
    names: () => sent,
    counts: (names) => Object.fromEntries(names.map((n) => [n, count(n)])),
  };
}

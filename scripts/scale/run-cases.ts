// Times each case: a warm-up, then `runs` calls one after another; p50 and p95 of the
// in-process wall time of each call (the query function's server time, no HTTP around it).
import type { CaseContext, ScaleCase } from "./cases";

export type CaseResult = {
  name: string;
  runs: number;
  p50Ms: number;
  p95Ms: number;
  maxMs: number;
  /** Set when the case threw: a query that fails at scale is a finding, not a crash. */
  error?: string;
};

function percentile(sorted: readonly number[], p: number): number {
  if (sorted.length === 0) return Number.NaN;
  const i = Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1);
  return sorted[Math.max(0, i)] as number;
}

export async function runCases(
  ctx: CaseContext,
  cases: readonly ScaleCase[],
  opts: {
    runs: number;
    warmup: number;
    /** Stop a case early (after at least `minRuns`) once its runs took this long: a query of seconds says enough in 5. */
    budgetMs?: number;
    /** Runs a case gets before the budget may stop it (default 5). */
    minRuns?: number;
    onResult?: (r: CaseResult) => void;
  },
): Promise<CaseResult[]> {
  const results: CaseResult[] = [];
  for (const c of cases) {
    let result: CaseResult;
    try {
      await c.setup?.(ctx);
      for (let i = 0; i < opts.warmup; i++) await c.run(ctx);
      const times: number[] = [];
      let spent = 0;
      for (let i = 0; i < opts.runs; i++) {
        const t = performance.now();
        await c.run(ctx);
        times.push(performance.now() - t);
        spent += performance.now() - t;
        if (opts.budgetMs !== undefined && i + 1 >= (opts.minRuns ?? 5) && spent > opts.budgetMs)
          break;
      }
      times.sort((a, b) => a - b);
      result = {
        name: c.name,
        runs: times.length,
        p50Ms: round(percentile(times, 50)),
        p95Ms: round(percentile(times, 95)),
        maxMs: round(times.at(-1) ?? Number.NaN),
      };
    } catch (err) {
      const message = err instanceof Error ? err.message : String(err);
      result = {
        name: c.name,
        runs: 0,
        p50Ms: Number.NaN,
        p95Ms: Number.NaN,
        maxMs: Number.NaN,
        error: message.split("\n")[0],
      };
    }
    opts.onResult?.(result);
    results.push(result);
  }
  return results;
}

const round = (ms: number) => Math.round(ms * 10) / 10;

export const TARGET_P95_MS = 100;

export function markdownTable(results: readonly CaseResult[]): string {
  const lines = [
    "| query and filter | runs | p50 ms | p95 ms | < 100 ms p95 |",
    "| --- | ---: | ---: | ---: | :---: |",
  ];
  for (const r of results) {
    if (r.error) lines.push(`| ${r.name} | 0 | — | — | error: ${r.error.replaceAll("|", "\\|")} |`);
    else
      lines.push(
        `| ${r.name} | ${r.runs} | ${r.p50Ms} | ${r.p95Ms} | ${r.p95Ms < TARGET_P95_MS ? "yes" : "**no**"} |`,
      );
  }
  return lines.join("\n");
}

export type CaseSummary = {
  cases: number;
  underTarget: number;
  /** The cases at or over the target (or failing), slowest first. */
  over: { name: string; p95Ms: number; error?: string }[];
};

/** How many cases meet the target (p95 under 100 ms), and which do not. */
export function summarize(results: readonly CaseResult[]): CaseSummary {
  const over = results
    .filter((r) => r.error !== undefined || !(r.p95Ms < TARGET_P95_MS))
    .map((r) => ({ name: r.name, p95Ms: r.p95Ms, ...(r.error ? { error: r.error } : {}) }))
    .sort((a, b) => (Number.isNaN(b.p95Ms) ? 1 : b.p95Ms - a.p95Ms));
  return { cases: results.length, underTarget: results.length - over.length, over };
}

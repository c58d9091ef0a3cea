// `npm run scale:measure -- --explain "<case name pattern>"`: runs the matching cases once while
// recording every statement they send, then prints EXPLAIN (ANALYZE, BUFFERS) of each read, so
// a slow case shows which index it walks (or which table it sorts) without copying its SQL out.
import pg from "pg";
import type { CaseContext, ScaleCase } from "./cases";

type Statement = { text: string; values: unknown[] };

function record<T>(fn: () => Promise<T>): Promise<{ result: T; statements: Statement[] }> {
  const statements: Statement[] = [];
  const original = pg.Client.prototype.query;
  // biome-ignore lint/suspicious/noExplicitAny: pg's query is overloaded many ways; this passes every form through.
  pg.Client.prototype.query = function (this: pg.Client, ...args: any[]) {
    const [first, second] = args;
    const text = typeof first === "string" ? first : first?.text;
    // drizzle passes ({ text, rowMode }, params); pg's own callers pass ({ text, values }).
    const values = (typeof first === "string" ? second : (first?.values ?? second)) ?? [];
    if (typeof text === "string" && /^[\s(]*(select|with)\b/i.test(text))
      statements.push({ text, values });
    return original.apply(this, args as Parameters<typeof original>);
  } as typeof original;
  return fn()
    .then((result) => ({ result, statements }))
    .finally(() => {
      pg.Client.prototype.query = original;
    });
}

export async function explainCases(ctx: CaseContext, cases: readonly ScaleCase[]): Promise<string> {
  const out: string[] = [];
  for (const c of cases) {
    await c.setup?.(ctx);
    const { statements } = await record(() => c.run(ctx));
    out.push(`### ${c.name}`);
    for (const s of statements) {
      const plan = await ctx.pool.query<{ "QUERY PLAN": string }>(
        `explain (analyze, buffers) ${s.text}`,
        s.values,
      );
      out.push(
        "```",
        s.text.replace(/\s+/g, " ").trim(),
        "",
        ...plan.rows.map((r) => r["QUERY PLAN"]),
        "```",
      );
    }
  }
  return out.join("\n");
}

// The spend screen's export: the window's spend per UTC day, agent and model (summed over the
// counters' writing backends), as CSV or JSON, for a session or token with `export:run`. The
// address takes the screen's own filters (from, to, agent, model) and `format`.
import { z } from "zod";
import { guardRoute } from "../../../../lib/api/guard-route";
import { problem } from "../../../../lib/api/problems";
import { csvRow } from "../../../../lib/domain/csv";
import { getPool } from "../../../../lib/server/db";
import { getSpendRows, spendSearchSchema } from "../../../../lib/server/queries/get-spend";
import {
  parseSearchParams,
  searchParamsOf,
} from "../../../../lib/server/queries/parse-search-params";

export const dynamic = "force-dynamic";

const exportSearchSchema = spendSearchSchema.and(
  z.object({
    format: z.enum(["csv", "json"], { error: "must be csv or json." }).default("csv"),
  }),
);

const CSV_HEADER = [
  "day",
  "agent",
  "model",
  "calls",
  "unpriced_calls",
  "input_tokens",
  "output_tokens",
  "cached_input_tokens",
  "reasoning_tokens",
  "cost_usd",
];

export const GET = guardRoute("export:run", async (request, viewer) => {
  const parsed = parseSearchParams(exportSearchSchema, searchParamsOf(request.url));
  if (!parsed.ok) return problem("invalid-request", parsed.errors.join(" "));
  const { format, ...search } = parsed.data;
  const { from, to, rows } = await getSpendRows(getPool(), viewer, search);
  const filename = `spend-${from}-to-${to}.${format}`;
  const headers = {
    "cache-control": "no-store",
    "content-disposition": `attachment; filename="${filename}"`,
  };
  if (format === "json") return Response.json({ from, to, rows }, { headers });
  const body =
    csvRow(CSV_HEADER) +
    rows
      .map((r) =>
        csvRow([
          r.day,
          r.agent,
          r.model,
          r.calls,
          r.unpricedCalls,
          r.inputTokens,
          r.outputTokens,
          r.cachedInputTokens,
          r.reasoningTokens,
          r.cost,
        ]),
      )
      .join("");
  return new Response(body, {
    status: 200,
    headers: { ...headers, "content-type": "text/csv; charset=utf-8" },
  });
});

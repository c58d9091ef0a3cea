// A model call's spend, added to the day's counters in the transaction that records the call
// (model.called): per agent and model, per tool the model chose (the cost split evenly over the
// calls it proposed, '' for an answer without one) and, for an agent capped per input key, per
// key value. One statement; rows per writing backend, so concurrent workers never queue on one.
import type { PoolClient } from "pg";
import type { ModelResponse } from "../../lib/sdk/model";

export type SpendRecord = {
  agent: string;
  response: Pick<ModelResponse, "model" | "usage" | "cost" | "priced" | "toolCalls">;
  /** The task's value of its agent's capped input key; null: the agent has no per-key cap. */
  keyValue: string | null;
};

export async function recordSpend(client: PoolClient, spend: SpendRecord): Promise<void> {
  const { usage, toolCalls } = spend.response;
  await client.query({
    name: "runtime_record_spend",
    text: `with daily as (
        insert into spend_daily as s (day, agent, model, backend, calls, unpriced_calls,
          input_tokens, output_tokens, cached_input_tokens, reasoning_tokens, cost)
        values ((now() at time zone 'UTC')::date, $1, $2, pg_backend_pid(), 1, $3, $4, $5, $6, $7, $8)
        on conflict (day, agent, model, backend) do update set
          calls = s.calls + 1,
          unpriced_calls = s.unpriced_calls + excluded.unpriced_calls,
          input_tokens = s.input_tokens + excluded.input_tokens,
          output_tokens = s.output_tokens + excluded.output_tokens,
          cached_input_tokens = s.cached_input_tokens + excluded.cached_input_tokens,
          reasoning_tokens = s.reasoning_tokens + excluded.reasoning_tokens,
          cost = s.cost + excluded.cost
      ), tools as (
        insert into spend_tool_daily as s (day, agent, tool, backend, decisions, cost)
        select (now() at time zone 'UTC')::date, $1, tool, pg_backend_pid(), count(*),
          count(*) * $8 / cardinality($9::text[])
        from unnest($9::text[]) as tool group by tool
        on conflict (day, agent, tool, backend) do update set
          decisions = s.decisions + excluded.decisions, cost = s.cost + excluded.cost
      )
      insert into spend_key_daily as s (day, agent, key_value, backend, calls, cost)
      select (now() at time zone 'UTC')::date, $1, $10, pg_backend_pid(), 1, $8
      where $10::text is not null
      on conflict (day, agent, key_value, backend) do update set
        calls = s.calls + 1, cost = s.cost + excluded.cost`,
    values: [
      spend.agent,
      spend.response.model,
      spend.response.priced === false ? 1 : 0,
      usage.inputTokens,
      usage.outputTokens,
      usage.cachedInputTokens ?? 0,
      usage.reasoningTokens ?? 0,
      spend.response.cost,
      toolCalls.length === 0 ? [""] : toolCalls.map((c) => c.toolName),
      spend.keyValue,
    ],
  });
}

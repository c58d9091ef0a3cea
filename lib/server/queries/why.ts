// "Why did it send that?", answered from the record: from an effect key, a task, an email's
// recipient or Message-ID, or a refund id, find the effects and for each one the model decision
// that chose it, the task input, every attempt and failure, who reviewed it, and whether a
// repeat returned the stored result instead of acting. For `GET /why` and the dashboard.

import { and, asc, eq, inArray, type SQL, sql } from "drizzle-orm";
import type { Db } from "../../../db/client";
import {
  journalSteps,
  type LedgerEntryRow,
  ledgerEntries,
  ledgerStreams,
  tasks,
} from "../../../db/schema";
import { requireScope, type Viewer } from "../../domain/access";
import { effectStartOf } from "../../domain/effect-start";
import type { JsonValue } from "../../domain/json";
import { taskStream } from "../ledger/append-ledger";
import { type ArchiveConfig, archiveConfig } from "./archived-entries";
import { loadBulkRefs } from "./bulk-refs";
import type { DbReader } from "./db-reader";
import { EFFECT_LEDGER_LIMIT, loadEffectApprovals, loadEffects } from "./get-effect";
import { ledgerEntryRowColumns, toLedgerApiEntry } from "./ledger-entry-dto";
import { payload, seesPayloads } from "./payloads";
import {
  addArchivedDecisions,
  addArchivedEvents,
  archivedKeyed,
  archivedOfTask,
  archivedStreams,
  withArchivedResults,
} from "./why-archived";
import {
  ATTEMPT_KINDS,
  asRecord,
  type EventRow,
  numberOr,
  REVIEW_KINDS,
  stringOr,
  toAttempts,
  toDecision,
  toReviews,
} from "./why-story";

export {
  WHY_DEFAULT_LIMIT,
  WHY_LOOKUP_HELP,
  WHY_LOOKUPS_SENTENCE,
  WHY_MAX_LIMIT,
  WHY_TASK_EVENTS_LIMIT,
  type WhyAnswer,
  type WhyEffect,
  type WhyQuery,
  whyAnswerSchema,
  whyQuerySchema,
} from "./why-schema";

import { startsAttemptText } from "../ledger/attempt-start-sql";
import { WHY_TASK_EVENTS_LIMIT, type WhyAnswer, type WhyEffect, type WhyQuery } from "./why-schema";

const FAILURE_KINDS = [
  "effect.failed",
  "effect.outcome_unknown",
  "effect.payload_mismatch",
  "effect.reconcile_failed",
];

const iso = (d: Date) => d.toISOString();

/** An archived task whose entries the database no longer holds is read from `archives`. */
export async function explainWhy(
  db: Db,
  viewer: Viewer | null,
  query: WhyQuery,
  archives: ArchiveConfig = archiveConfig(),
): Promise<WhyAnswer> {
  // The answer is read from the ledger as much as from the tasks.
  requireScope(viewer, "tasks:read");
  const visible = seesPayloads(requireScope(viewer, "ledger:read"));
  return db.transaction(
    async (tx) => {
      const clock = await tx.execute<{ as_of: Date }>(sql`select now() as as_of`);
      const found = await findEffectKeys(tx, query);
      const keys = found.slice(0, query.limit);
      const loaded = await loadEffects(tx, keys, visible);
      const taskIds = [...new Set(loaded.map((e) => e.taskId))];
      // Each task with its stream's archive mark (issue 23), the head row by primary key.
      const taskRows =
        taskIds.length === 0
          ? []
          : (
              await tx
                .select({
                  row: tasks,
                  archivedIn: ledgerStreams.archivedIn,
                  archivedAt: ledgerStreams.archivedAt,
                  headSeq: ledgerStreams.headSeq,
                  headHash: ledgerStreams.headHash,
                })
                .from(tasks)
                .leftJoin(ledgerStreams, eq(ledgerStreams.stream, sql`'task:' || ${tasks.id}`))
                .where(inArray(tasks.id, taskIds))
            ).map((r) => ({ ...r, ...r.row }));
      const streams = await archivedStreams(tx, taskRows, archives);
      const effectDtos = withArchivedResults(loaded, streams, visible);
      // Only the tool steps of these effects, without results (a tool step's is the effect's).
      const stepRows =
        keys.length === 0
          ? []
          : await tx
              .select({
                taskId: journalSteps.taskId,
                seq: journalSteps.seq,
                kind: journalSteps.kind,
                name: journalSteps.name,
                status: journalSteps.status,
                attempt: journalSteps.attempt,
                effectKey: journalSteps.effectKey,
                startedAt: journalSteps.startedAt,
                completedAt: journalSteps.completedAt,
              })
              .from(journalSteps)
              .where(
                and(inArray(journalSteps.taskId, taskIds), inArray(journalSteps.effectKey, keys)),
              );
      const approvalsByKey = await loadEffectApprovals(tx, keys);
      // Rows as readers see them (the partition month left out), beside the archive's.
      const keyed: LedgerEntryRow[] =
        keys.length === 0
          ? []
          : await tx
              .select(ledgerEntryRowColumns)
              .from(ledgerEntries)
              // A key's entries are on its effect's task's stream (ledger-by-key.ts).
              .where(
                and(
                  inArray(ledgerEntries.stream, taskIds.map(taskStream)),
                  inArray(ledgerEntries.key, keys),
                ),
              )
              .orderBy(asc(ledgerEntries.id));
      keyed.push(...archivedKeyed(streams, keys));
      keyed.sort((a, b) => a.id - b.id);
      const events = await loadTaskEvents(tx, taskIds);
      addArchivedEvents(events, streams, [...ATTEMPT_KINDS, ...REVIEW_KINDS]);
      const decisions = await loadDecisions(tx, effectDtos);
      addArchivedDecisions(decisions, effectDtos, streams);
      const bulks = await loadBulkRefs(
        tx,
        [...events.values()].flatMap((e) => e.rows.map((r) => r.data)),
      );

      const effectsOut = effectDtos.flatMap((effect): WhyEffect[] => {
        const task = taskRows.find((t) => t.id === effect.taskId);
        if (!task) return [];
        const step = stepRows.find(
          (s) =>
            s.taskId === effect.taskId && s.seq === effect.stepSeq && s.effectKey === effect.key,
        );
        const history = keyed.filter((e) => e.key === effect.key);
        const taskEvents = events.get(task.id) ?? { rows: [], truncated: false };
        const dedupes = history.filter((e) => e.kind === "effect.deduplicated");
        return [
          {
            effect,
            task: {
              id: task.id,
              agent: task.agent,
              status: task.status,
              deadReason: task.deadReason,
              attempts: task.attempts,
              version: task.version,
              enqueuedBy: task.createdBy,
              enqueuedAt: iso(task.createdAt),
              enqueueKey: task.enqueueKey,
              input: payload(visible, task.input as JsonValue),
              archived: archivedOfTask(streams, task.id),
            },
            step: step
              ? {
                  seq: step.seq,
                  kind: step.kind,
                  name: step.name,
                  status: step.status,
                  attempt: step.attempt,
                  startedAt: iso(step.startedAt),
                  completedAt: step.completedAt ? iso(step.completedAt) : null,
                }
              : null,
            decision: toDecision(decisions.get(effect.key), effect, visible),
            attempts: toAttempts(taskEvents.rows),
            attemptsTruncated: taskEvents.truncated,
            failures: history
              .filter((e) => FAILURE_KINDS.includes(e.kind))
              .map((e) => {
                const d = asRecord(e.data as JsonValue);
                return {
                  ledgerEntryId: e.id,
                  kind: e.kind,
                  at: iso(e.at),
                  actor: e.actor,
                  attempt: numberOr(d.attempt),
                  performed: stringOr(d.performed),
                  action: stringOr(d.action) ?? stringOr(d.policy),
                  error: d.error ?? null,
                };
              }),
            approvals: approvalsByKey.get(effect.key) ?? [],
            reviews: toReviews(taskEvents.rows, bulks).filter(
              (r) => r.effectKeys.length === 0 || r.effectKeys.includes(effect.key),
            ),
            executions: history.filter((e) => effectStartOf(e) !== null).length,
            deduplicated: dedupes.length > 0,
            dedupes: dedupes.map((e) => ({
              ledgerEntryId: e.id,
              at: iso(e.at),
              actor: e.actor,
              attempt: numberOr(asRecord(e.data as JsonValue).attempt),
            })),
            history: history.slice(0, EFFECT_LEDGER_LIMIT).map((e) => toLedgerApiEntry(e, visible)),
            historyTruncated: history.length > EFFECT_LEDGER_LIMIT,
          },
        ];
      });

      return {
        query: { by: query.by, value: query.value },
        effects: effectsOut,
        truncated: found.length > query.limit,
        limit: query.limit,
        payloadsHidden: !visible,
        asOf: iso(new Date(clock.rows[0]?.as_of ?? Date.now())),
      };
    },
    { isolationLevel: "repeatable read", accessMode: "read only" },
  );
}

/**
 * Keys of the matching effects, newest first, one more than the limit. Recipient, Message-ID
 * and refund id are read where the tools record them: `to` in the arguments and intent of an
 * email tool, `messageId` and `refundId` in the result. A Message-ID also names its effect by
 * key (`<key@domain>`), which finds a mail whose outcome was never recorded.
 */
async function findEffectKeys(db: DbReader, query: WhyQuery): Promise<string[]> {
  const { rows } = await db.execute<{ key: string }>(
    sql`select key from effects where ${matching(query)}
        order by created_at desc, key desc limit ${query.limit + 1}`,
  );
  return rows.map((r) => r.key);
}

function matching({ by, value: v }: WhyQuery): SQL {
  switch (by) {
    case "key":
      return sql`key = ${v}`;
    case "taskId":
      return sql`task_id = ${v}`;
    case "recipient":
      // Each arm is one index (effects_args_to_idx, effects_intent_to_idx, and the partial
      // effects_args_to_list_idx over the few effects with a list of recipients), so the
      // planner ORs three small bitmaps instead of reading every effect.
      return sql`(lower(args ->> 'to') = ${v} or lower(intent ->> 'to') = ${v}
        or (jsonb_typeof(args -> 'to') = 'array'
            and exists (select 1 from jsonb_array_elements_text(args -> 'to') as r where lower(r) = ${v})))`;
    case "messageId": {
      const local = v.slice(0, v.lastIndexOf("@")).toLowerCase();
      return sql`(result ->> 'messageId' in (${`<${v}>`}, ${v})
        or key = ${/^[0-9a-f]{64}$/.test(local) ? local : null})`;
    }
    case "refundId":
      return sql`result ->> 'refundId' = ${v}`;
  }
}

/** The latest attempt and review entries of each task, oldest first, and whether some were left out. */
async function loadTaskEvents(
  db: DbReader,
  taskIds: readonly string[],
): Promise<Map<string, { rows: EventRow[]; truncated: boolean }>> {
  const byTask = new Map<string, { rows: EventRow[]; truncated: boolean }>();
  if (taskIds.length === 0) return byTask;
  const { rows } = await db.execute<EventRow & { task_id: string; total: number }>(sql`
    select task_id, id, seq, at, kind, actor, key, data, total from (
      select task_id, id, seq, at, kind, actor, key, data,
             row_number() over (partition by task_id order by seq desc) as rn,
             count(*) over (partition by task_id) as total
      from ledger_entries
      where stream = any(${sql.param(taskIds.map(taskStream))}::text[])
        and (kind = any(${sql.param([...ATTEMPT_KINDS, ...REVIEW_KINDS])}::text[])
             or ${sql.raw(startsAttemptText())})
    ) latest
    where rn <= ${WHY_TASK_EVENTS_LIMIT}
    order by task_id, seq`);
  for (const r of rows) {
    const entry = byTask.get(r.task_id) ?? { rows: [], truncated: false };
    entry.rows.push({ ...r, at: new Date(r.at) });
    entry.truncated = Number(r.total) > WHY_TASK_EVENTS_LIMIT;
    byTask.set(r.task_id, entry);
  }
  return byTask;
}

/**
 * For each effect, the last model call before its key first appeared in the ledger (the
 * decision that led to claiming it), at a step before the effect's own. A replay may re-ask
 * the model later; the first claim is what acted.
 */
async function loadDecisions(
  db: DbReader,
  effects: readonly { key: string; taskId: string; stepSeq: number }[],
): Promise<Map<string, EventRow>> {
  const found = new Map<string, EventRow>();
  if (effects.length === 0) return found;
  const { rows } = await db.execute<EventRow & { effect_key: string }>(sql`
    select k.key as effect_key, m.id, m.seq, m.at, m.kind, m.actor, m.key, m.data
    from unnest(${sql.param(effects.map((e) => e.key))}::text[],
                ${sql.param(effects.map((e) => taskStream(e.taskId)))}::text[],
                ${sql.param(effects.map((e) => e.stepSeq))}::int[]) as k(key, stream, step_seq)
    cross join lateral (
      select min(seq) as seq from ledger_entries where stream = k.stream and key = k.key
    ) first_claim
    cross join lateral (
      select id, seq, at, kind, actor, key, data from ledger_entries
      where stream = k.stream and kind = 'model.called'
        and seq < coalesce(first_claim.seq, 9223372036854775807)
        and case when jsonb_typeof(data -> 'step') = 'number' then (data ->> 'step')::numeric end < k.step_seq
      order by seq desc
      limit 1
    ) m`);
  for (const r of rows) found.set(r.effect_key, { ...r, at: new Date(r.at) });
  return found;
}

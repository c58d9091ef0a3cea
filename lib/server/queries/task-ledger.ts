// The parts of the task screen read from the task's own ledger entries (the effects' recorded
// results, the rejection, payload mismatches, the input history, the attempts), from the
// database or, for an archived task whose entries it no longer holds, from the entries the
// archive's files gave (archived-entries.ts): the same rows either way, one builder.
import { and, desc, eq, inArray, sql } from "drizzle-orm";
import { z } from "zod";
import type { Db } from "../../../db/client";
import { ledgerEntries } from "../../../db/schema";
import { attemptStartOf } from "../../domain/attempt-start";
import type { JsonValue } from "../../domain/json";
import { type DiffRow, diffJson } from "../../domain/json-diff";
import type { EntryRow } from "../ledger/chain-check";
import type { DbReader } from "./db-reader";
import {
  INPUT_ENTRIES_READ,
  INPUT_KINDS,
  type InputEntryRow,
  type InputHistoryDto,
  inputHistoryOf,
  readInputHistory,
} from "./input-history";
import { RESULT_KINDS } from "./ledger-by-key";
import { payload } from "./payloads";
import { ATTEMPTS_SHOWN, type AttemptDto, attemptsOf, readAttempts } from "./task-attempts";

export type TaskLedgerDto = {
  /** Each effect's result as the ledger recorded it (redacted), by key; the latest entry wins. */
  recorded: Map<string, JsonValue>;
  rejection: {
    by: string;
    at: string;
    reason: string;
    from: string | null;
    bulkId: string | null;
  } | null;
  payloadMismatches: {
    key: string;
    at: string;
    policy: string;
    first: { fingerprint: string; args: JsonValue };
    second: { fingerprint: string; args: JsonValue };
    /** Empty when the viewer may not see payloads. */
    rows: DiffRow[];
  }[];
  inputHistory: InputHistoryDto;
  attempts: AttemptDto[];
};

const MISMATCHES_SHOWN = 5;

const rejectionSchema = z.looseObject({
  reason: z.string(),
  from: z.string().optional(),
  bulkId: z.uuid().optional().catch(undefined),
});
const payloadSchema = z.object({ fingerprint: z.string(), args: z.json() });
const mismatchSchema = z.looseObject({
  first: payloadSchema,
  second: payloadSchema,
  policy: z.string().default("dead-letter"),
});

type Dated = { actor: string; at: Date; data: unknown };
type Keyed = { key: string | null; at: Date; data: unknown };

function build(
  results: readonly { key: string | null; result: JsonValue | null }[],
  rejected: Dated | undefined,
  mismatchRows: readonly Keyed[],
  visible: boolean,
): Omit<TaskLedgerDto, "inputHistory" | "attempts"> {
  const shown = (value: JsonValue) => payload(visible, value);
  const recorded = new Map<string, JsonValue>();
  for (const r of results) if (r.key !== null) recorded.set(r.key, r.result ?? null);
  const r = rejected ? rejectionSchema.safeParse(rejected.data) : null;
  const payloadMismatches: TaskLedgerDto["payloadMismatches"] = [];
  for (const m of mismatchRows) {
    const d = mismatchSchema.safeParse(m.data);
    if (!d.success || m.key === null) continue;
    payloadMismatches.push({
      key: m.key,
      at: m.at.toISOString(),
      policy: d.data.policy,
      first: { fingerprint: d.data.first.fingerprint, args: shown(d.data.first.args) },
      second: { fingerprint: d.data.second.fingerprint, args: shown(d.data.second.args) },
      rows: visible ? diffJson(d.data.first.args, d.data.second.args) : [],
    });
  }
  return {
    recorded,
    rejection:
      rejected && r?.success
        ? {
            by: rejected.actor,
            at: rejected.at.toISOString(),
            reason: r.data.reason,
            from: r.data.from ?? null,
            bulkId: r.data.bulkId ?? null,
          }
        : null,
    payloadMismatches,
  };
}

/** Read inside the task screen's snapshot. */
export async function readTaskLedger(
  db: DbReader & Pick<Db, "selectDistinctOn">,
  stream: string,
  effectKeys: readonly string[],
  input: JsonValue,
  visible: boolean,
): Promise<TaskLedgerDto> {
  const results =
    effectKeys.length === 0
      ? []
      : await db
          .selectDistinctOn([ledgerEntries.key], {
            key: ledgerEntries.key,
            result: sql<JsonValue>`${ledgerEntries.data} -> 'result'`,
          })
          .from(ledgerEntries)
          .where(
            and(
              eq(ledgerEntries.stream, stream),
              inArray(ledgerEntries.kind, RESULT_KINDS),
              inArray(ledgerEntries.key, [...effectKeys]),
            ),
          )
          .orderBy(ledgerEntries.key, sql`${ledgerEntries.seq} desc`);
  const [rejected] = await db
    .select({ actor: ledgerEntries.actor, at: ledgerEntries.at, data: ledgerEntries.data })
    .from(ledgerEntries)
    .where(and(eq(ledgerEntries.stream, stream), eq(ledgerEntries.kind, "review.rejected")))
    .orderBy(desc(ledgerEntries.seq))
    .limit(1);
  const mismatchRows = await db
    .select({ key: ledgerEntries.key, at: ledgerEntries.at, data: ledgerEntries.data })
    .from(ledgerEntries)
    .where(and(eq(ledgerEntries.stream, stream), eq(ledgerEntries.kind, "effect.payload_mismatch")))
    .orderBy(desc(ledgerEntries.seq))
    .limit(MISMATCHES_SHOWN);
  return {
    ...build(results, rejected, mismatchRows, visible),
    inputHistory: await readInputHistory(db, stream, input, visible),
    attempts: await readAttempts(db, stream),
  };
}

/** The same from a stream's entries in seq order, as an archive's files hold them. */
export function taskLedgerOf(
  entries: readonly EntryRow[],
  effectKeys: readonly string[],
  input: JsonValue,
  visible: boolean,
): TaskLedgerDto {
  const keys = new Set(effectKeys);
  const newestFirst = [...entries].reverse();
  const of = (kinds: readonly string[], rows: readonly EntryRow[] = entries) =>
    rows.filter((e) => kinds.includes(e.kind));
  const latestByKey = new Map<string, JsonValue | null>();
  for (const e of of(RESULT_KINDS, newestFirst)) {
    if (e.key === null || !keys.has(e.key) || latestByKey.has(e.key)) continue;
    const data = e.data;
    const result =
      typeof data === "object" && data !== null && !Array.isArray(data) ? data.result : undefined;
    latestByKey.set(e.key, result ?? null);
  }
  const results = [...latestByKey].map(([key, result]) => ({ key, result }));
  const rejected = of(["review.rejected"], newestFirst)[0];
  const mismatches = of(["effect.payload_mismatch"], newestFirst).slice(0, MISMATCHES_SHOWN);
  const inputRows: InputEntryRow[] = of(INPUT_KINDS).slice(0, INPUT_ENTRIES_READ);
  return {
    ...build(results, rejected, mismatches, visible),
    inputHistory: inputHistoryOf(inputRows, input, visible),
    attempts: attemptsOf(
      newestFirst.filter((e) => attemptStartOf(e) !== null).slice(0, ATTEMPTS_SHOWN),
    ),
  };
}

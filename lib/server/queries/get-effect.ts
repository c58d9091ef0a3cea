// One side effect by its key, for `GET /effects/{key}`: what it is, how it stands, the task and
// step it belongs to, the approvals asked for it and its ledger entries, read in one snapshot.
// The effect DTO and its loader are shared with the "why" answer (why.ts).
import { and, asc, eq, inArray, sql } from "drizzle-orm";
import { z } from "zod";
import type { Db } from "../../../db/client";
import { approvals, effects, journalSteps, ledgerEntries, tasks } from "../../../db/schema";
import { can, requireScope, type Viewer } from "../../domain/access";
import type { JsonValue } from "../../domain/json";
import { DEAD_REASONS, EFFECT_STATUSES, STEP_KINDS, TASK_STATUSES } from "../../domain/task-states";
import { taskStream } from "../ledger/append-ledger";
import { RESULT_KINDS } from "./ledger-by-key";
import { ledgerEntryRowColumns, ledgerEntrySchema, toLedgerApiEntry } from "./ledger-entry-dto";
import { effectKeySchema } from "./ledger-search";
import { payload, seesPayloads } from "./payloads";

/** Reads that also need DISTINCT ON: the pool-backed database or a transaction in it. */
export type EffectReader = Pick<Db, "select" | "selectDistinctOn" | "execute">;

/** At most this many ledger entries per effect (oldest first); `ledgerTruncated` says so. */
export const EFFECT_LEDGER_LIMIT = 500;

const instant = z.iso.datetime();

export const effectSchema = z.object({
  key: z.string(),
  taskId: z.string(),
  stepSeq: z.number().int(),
  tool: z.string(),
  status: z.enum(EFFECT_STATUSES),
  /** `status` read with the lease: a started effect is in flight or its outcome is unknown. */
  state: z.enum(["succeeded", "failed", "in_flight", "outcome_unknown"]),
  fingerprint: z.string(),
  /** Payloads: HIDDEN_PAYLOAD without `payloads:read`. */
  intent: z.json(),
  /** Redacted by the tool's `sensitive` paths when first performed. */
  args: z.json(),
  /** The result as the ledger recorded it (redacted); null unless it succeeded. */
  result: z.json().nullable(),
  error: z.json().nullable(),
  /** Times the provider was asked (a retry after "not performed" or an unknown outcome adds one). */
  attempts: z.number().int(),
  leaseOwner: z.string().nullable(),
  leaseExpiresAt: instant.nullable(),
  createdAt: instant,
  updatedAt: instant,
  completedAt: instant.nullable(),
});

export type EffectDetailEffect = z.output<typeof effectSchema>;

export const effectTaskSchema = z.object({
  id: z.string(),
  agent: z.string(),
  status: z.enum(TASK_STATUSES),
  deadReason: z.enum(DEAD_REASONS).nullable(),
  attempts: z.number().int(),
  version: z.number().int(),
});

/** The journal row of the step that performed the effect; its result is the effect's. */
export const effectStepSchema = z.object({
  seq: z.number().int(),
  kind: z.enum(STEP_KINDS),
  name: z.string(),
  status: z.enum(["started", "completed"]),
  attempt: z.number().int(),
  startedAt: instant,
  completedAt: instant.nullable(),
});

export const effectApprovalSchema = z.object({
  id: z.number().int(),
  status: z.enum(["pending", "approved", "rejected"]),
  /** The payload the reviewer was asked about; a different one needs its own approval. */
  fingerprint: z.string(),
  money: z.boolean(),
  requestedAt: instant,
  /** Under the two-person rule, the first reviewer's yes. */
  firstApprovedBy: z.string().nullable(),
  firstApprovedAt: instant.nullable(),
  decidedBy: z.string().nullable(),
  decidedAt: instant.nullable(),
  reason: z.string().nullable(),
  /** When the approved effect first started: an approval acts once. */
  usedAt: instant.nullable(),
});

export type EffectApproval = z.output<typeof effectApprovalSchema>;

export const effectDetailSchema = z.object({
  effect: effectSchema,
  task: effectTaskSchema,
  /** Null when the journal no longer holds it at that position (a replay cleared it). */
  step: effectStepSchema.nullable(),
  approvals: z.array(effectApprovalSchema),
  /** Every entry carrying the key, oldest first; empty without `ledger:read`. */
  ledger: z.array(ledgerEntrySchema),
  ledgerTruncated: z.boolean(),
  ledgerHidden: z.boolean(),
  payloadsHidden: z.boolean(),
  /** The database clock when the snapshot was taken. */
  asOf: instant,
});

export type EffectDetail = z.output<typeof effectDetailSchema>;

const iso = (d: Date) => d.toISOString();
const isoOrNull = (d: Date | null) => (d ? d.toISOString() : null);

/**
 * Effects by key, in the order of `keys`, with the result the ledger recorded: the effects
 * table keeps the raw result (a dedupe must return it), the ledger the copy redacted by the
 * tool's `sensitive` paths. The latest entry wins: a reviewer's "it happened" can record one.
 */
export async function loadEffects(
  db: EffectReader,
  keys: readonly string[],
  visible: boolean,
): Promise<EffectDetailEffect[]> {
  if (keys.length === 0) return [];
  const rows = await db
    .select({
      row: effects,
      live: sql<boolean>`coalesce(${effects.leaseExpiresAt} > now(), false)`,
    })
    .from(effects)
    .where(inArray(effects.key, [...keys]));
  if (rows.length === 0) return [];
  const recorded = new Map<string, JsonValue>();
  const results = await db
    .selectDistinctOn([ledgerEntries.key], {
      key: ledgerEntries.key,
      result: sql<JsonValue>`${ledgerEntries.data} -> 'result'`,
    })
    .from(ledgerEntries)
    .where(
      and(
        // A key's entries are on its effect's task's stream; its result entries are also
        // by key (ledger_entries_result_key_idx): see ledger-by-key.ts.
        inArray(ledgerEntries.stream, [...new Set(rows.map((r) => taskStream(r.row.taskId)))]),
        inArray(ledgerEntries.key, [...keys]),
        inArray(ledgerEntries.kind, RESULT_KINDS),
      ),
    )
    .orderBy(ledgerEntries.key, sql`${ledgerEntries.id} desc`);
  for (const r of results) if (r.key !== null) recorded.set(r.key, r.result ?? null);

  const shown = (value: JsonValue) => payload(visible, value);
  const byKey = new Map(rows.map((r) => [r.row.key, r]));
  return keys.flatMap((key) => {
    const found = byKey.get(key);
    if (!found) return [];
    const { row: e, live } = found;
    return [
      {
        key: e.key,
        taskId: e.taskId,
        stepSeq: e.stepSeq,
        tool: e.tool,
        status: e.status,
        state: e.status !== "started" ? e.status : live ? "in_flight" : "outcome_unknown",
        fingerprint: e.fingerprint,
        intent: shown(e.intent as JsonValue),
        args: shown(e.args as JsonValue),
        result: e.status === "succeeded" ? shown(recorded.get(e.key) ?? null) : null,
        error: (e.error ?? null) as JsonValue | null,
        attempts: e.attempts,
        leaseOwner: e.leaseOwner,
        leaseExpiresAt: isoOrNull(e.leaseExpiresAt),
        createdAt: iso(e.createdAt),
        updatedAt: iso(e.updatedAt),
        completedAt: isoOrNull(e.completedAt),
      },
    ];
  });
}

/** Approvals asked for these keys, by key, oldest first. */
export async function loadEffectApprovals(
  db: EffectReader,
  keys: readonly string[],
): Promise<Map<string, EffectApproval[]>> {
  const byKey = new Map<string, EffectApproval[]>();
  if (keys.length === 0) return byKey;
  const rows = await db
    .select()
    .from(approvals)
    .where(inArray(approvals.effectKey, [...keys]))
    .orderBy(asc(approvals.requestedAt), asc(approvals.id));
  for (const a of rows) {
    const list = byKey.get(a.effectKey) ?? [];
    list.push({
      id: a.id,
      status: a.status,
      fingerprint: a.fingerprint,
      money: a.money,
      requestedAt: iso(a.requestedAt),
      firstApprovedBy: a.firstApprovedBy,
      firstApprovedAt: isoOrNull(a.firstApprovedAt),
      decidedBy: a.decidedBy,
      decidedAt: isoOrNull(a.decidedAt),
      reason: a.reason,
      usedAt: isoOrNull(a.usedAt),
    });
    byKey.set(a.effectKey, list);
  }
  return byKey;
}

/** The effect with `key`, or null when there is none (a malformed key names none). */
export async function getEffect(
  db: Db,
  viewer: Viewer | null,
  key: string,
): Promise<EffectDetail | null> {
  const reader = requireScope(viewer, "tasks:read");
  const readsLedger = can(reader, "ledger:read");
  const visible = seesPayloads(reader);
  const parsed = effectKeySchema.safeParse(key);
  if (!parsed.success) return null;
  const wanted = parsed.data;
  return db.transaction(
    async (tx) => {
      const [effect] = await loadEffects(tx, [wanted], visible);
      if (!effect) return null;
      const [task] = await tx
        .select({
          id: tasks.id,
          agent: tasks.agent,
          status: tasks.status,
          deadReason: tasks.deadReason,
          attempts: tasks.attempts,
          version: tasks.version,
          asOf: sql<Date>`now()`.mapWith(tasks.createdAt),
        })
        .from(tasks)
        .where(eq(tasks.id, effect.taskId));
      if (!task) throw new Error(`effect ${wanted} names task ${effect.taskId}, which is missing`);
      const [step] = await tx
        .select()
        .from(journalSteps)
        .where(
          and(
            eq(journalSteps.taskId, effect.taskId),
            eq(journalSteps.seq, effect.stepSeq),
            eq(journalSteps.effectKey, wanted),
          ),
        );
      const approvalsByKey = await loadEffectApprovals(tx, [wanted]);
      const entries = readsLedger
        ? await tx
            .select(ledgerEntryRowColumns)
            .from(ledgerEntries)
            .where(
              and(
                eq(ledgerEntries.stream, taskStream(effect.taskId)),
                eq(ledgerEntries.key, wanted),
              ),
            )
            .orderBy(asc(ledgerEntries.id))
            .limit(EFFECT_LEDGER_LIMIT + 1)
        : [];
      const { asOf, ...taskDto } = task;
      return {
        effect,
        task: taskDto,
        step: step
          ? {
              seq: step.seq,
              kind: step.kind,
              name: step.name,
              status: step.status,
              attempt: step.attempt,
              startedAt: iso(step.startedAt),
              completedAt: isoOrNull(step.completedAt),
            }
          : null,
        approvals: approvalsByKey.get(wanted) ?? [],
        ledger: entries.slice(0, EFFECT_LEDGER_LIMIT).map((e) => toLedgerApiEntry(e, visible)),
        ledgerTruncated: entries.length > EFFECT_LEDGER_LIMIT,
        ledgerHidden: !readsLedger,
        payloadsHidden: !visible,
        asOf: iso(asOf),
      };
    },
    { isolationLevel: "repeatable read", accessMode: "read only" },
  );
}

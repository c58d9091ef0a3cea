// What a bulk action's own page shows a reviewer deciding on it: why it was frozen (the
// requester's reason and the filter or rows it was chosen by), the aggregated preview recorded
// when it froze (act, deduplicate, unknown, money summed per currency), how many of its tasks
// moved since, and its frozen set as the dead-letter list shows tasks: the same columns, filter
// and pages (listDeadLetterTasks, narrowed to the members).
import { and, eq, sql } from "drizzle-orm";
import { z } from "zod";
import { bulkActionMembers, ledgerEntries, tasks } from "../../../db/schema";
import { requireScope, type Viewer } from "../../domain/access";
import type { BulkPreview } from "../../domain/bulk-preview";
import { bulkStream } from "../ledger/append-ledger";
import {
  type DeadLetterFilter,
  type DeadLetterSearch,
  deadLetterFilterSchema,
} from "../review/dead-letter-filter";
import type { DbReader } from "./db-reader";
import { type DeadTaskPageDto, listDeadLetterTasks } from "./list-dead-letter-tasks";

export type BulkReviewDto = {
  /** The requester's reason (reject and cancel require one; replay and resume may give one). */
  reason: string | null;
  /** Replay: the step each task replays from, by name; null from step 1. */
  stepName: string | null;
  /** How the set was chosen: every dead task matching a filter, or rows ticked one by one. */
  selection: { kind: "filter"; filter: DeadLetterFilter } | { kind: "ids"; count: number } | null;
  /** The aggregated preview the requester confirmed, as recorded in `bulk.requested`. */
  preview: BulkPreview | null;
  /** Members whose task is no longer dead at the version frozen: acted on since, by anyone. */
  moved: number;
};

const countSchema = z.number().int().nonnegative();
const previewSchema = z.object({
  tasks: countSchema,
  skipped: countSchema,
  effects: z.object({
    act: countSchema,
    dedupe: countSchema,
    unknown: countSchema,
    inFlight: countSchema,
    money: countSchema,
  }),
  amounts: z
    .object({
      totals: z.array(
        z.object({ currency: z.string(), minor: z.number().int(), effects: countSchema }),
      ),
      unknown: countSchema,
    })
    .optional(),
  twoPersonTasks: countSchema,
  twoPerson: z.boolean(),
  reasons: z.array(z.object({ reason: z.string(), tasks: countSchema })),
});

/**
 * The aggregated preview recorded in a `bulk.requested` entry (its `preview`), or null when it
 * holds none this reads. One reading for every screen that shows it: the bulk's page and the
 * inbox's row of a waiting bulk show the same sums.
 */
export function recordedPreview(raw: unknown): BulkPreview | null {
  if (raw === undefined || raw === null) return null;
  const parsed = previewSchema.safeParse(raw);
  if (!parsed.success) return null;
  return {
    ...parsed.data,
    // Frozen before amounts were summed: no money effect's amount is known.
    amounts: parsed.data.amounts ?? { totals: [], unknown: parsed.data.effects.money },
  };
}

const requestedSchema = z.looseObject({
  params: z.looseObject({ reason: z.string().optional(), stepName: z.string().nullish() }),
  selection: z.union([
    z.object({ kind: z.literal("filter"), filter: deadLetterFilterSchema }),
    z.object({ kind: z.literal("ids"), taskIds: z.array(z.string()) }),
  ]),
  preview: z.unknown().optional(),
});

export async function getBulkReview(
  db: DbReader,
  viewer: Viewer | null,
  bulkId: string,
): Promise<BulkReviewDto | null> {
  requireScope(viewer, "tasks:read");
  const [entry] = await db
    .select({ data: ledgerEntries.data })
    .from(ledgerEntries)
    .where(
      and(eq(ledgerEntries.stream, bulkStream(bulkId)), eq(ledgerEntries.kind, "bulk.requested")),
    )
    .limit(1);
  if (!entry) return null;
  const requested = requestedSchema.safeParse(entry.data);
  const data = requested.success ? requested.data : null;
  const [moved] = await db
    .select({ n: sql<number>`count(*)::int` })
    .from(bulkActionMembers)
    .innerJoin(tasks, eq(tasks.id, bulkActionMembers.taskId))
    .where(
      and(
        eq(bulkActionMembers.bulkId, bulkId),
        sql`(${tasks.status} <> 'dead' or ${tasks.version} <> ${bulkActionMembers.taskVersion})`,
      ),
    );
  const reason = data?.params.reason?.trim();
  return {
    reason: reason ? reason : null,
    stepName: data?.params.stepName ?? null,
    selection: !data
      ? null
      : data.selection.kind === "filter"
        ? { kind: "filter", filter: data.selection.filter }
        : { kind: "ids", count: data.selection.taskIds.length },
    preview: recordedPreview(data?.preview),
    moved: moved?.n ?? 0,
  };
}

/**
 * One page of the bulk's members that are still dead, matching the dead-letter filter `search`,
 * with the dead-letter list's columns and keyset pages.
 */
export async function listBulkMembers(
  db: DbReader,
  viewer: Viewer | null,
  bulkId: string,
  search: DeadLetterSearch,
): Promise<DeadTaskPageDto> {
  return listDeadLetterTasks(
    db,
    viewer,
    search,
    undefined,
    sql`${tasks.id} in (select ${bulkActionMembers.taskId} from ${bulkActionMembers} where ${bulkActionMembers.bulkId} = ${bulkId})`,
  );
}

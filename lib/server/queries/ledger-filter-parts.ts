// The ledger's "any of these" filters, each part a page of its own on an index: free text
// (recipient, Message-ID, refund id, intent value, key prefix, task or bulk id) and a tool.
import { SQL, sql } from "drizzle-orm";
import { ledgerEntries } from "../../../db/schema";
import { bulkStream, taskStream } from "../ledger/append-ledger";
import { keyedEntries } from "./ledger-by-key";

/**
 * A part that is one stream's entries: its page walks the (stream, seq) key newest first by
 * seq, the same order as by time and id within a stream (append-ledger.ts keeps them rising
 * together), where a condition on the stream under the time order could walk the time index
 * through every partition (half a second at 1M for a task with 20k entries).
 */
export type StreamPart = { stream: string };

/** One of a filter's "any of these" parts: a condition, or a whole stream. */
export type LedgerPart = SQL | StreamPart;

export const isStreamPart = (p: LedgerPart): p is StreamPart => !(p instanceof SQL);

/**
 * A task's entries: its stream's, and those naming it from another stream (a bulk action's
 * outcome for a member), on ledger_entries_task_elsewhere_idx, which holds only those (0063).
 */
export function taskParts(taskId: string): [StreamPart, SQL] {
  const e = ledgerEntries;
  return [
    { stream: taskStream(taskId) },
    sql`(${e.taskId} = ${taskId} and ${e.stream} <> 'task:' || ${e.taskId}::text)`,
  ];
}

const HEX_PREFIX = /^[0-9a-f]{8,64}$/;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/**
 * Free text, matched where each thing is recorded and never as a substring of every entry's
 * data (a leading-wildcard scan of the whole ledger): the effects whose recipient (`to` in the
 * arguments or intent, any case), Message-ID (with or without brackets, or the key inside it),
 * refund id or any top-level intent value equals it, by their keys; an effect key or a prefix of
 * at least 8 hex digits; a task id or a bulk action's id. The effect expressions are the ones /why matches on, so the
 * same indexes serve both (effects_intent_values_idx for the intent values). Returned as parts,
 * any of which may match: each is a page of its own (see readLedgerRows), since an OR of a
 * key subquery and a task id is no index's condition and read the whole ledger (3 s at 1M).
 */
export function freeTextParts(q: string): LedgerPart[] {
  const lower = q.toLowerCase();
  const bare = q.replace(/^<(.*)>$/, "$1");
  const local = bare.slice(0, bare.lastIndexOf("@")).toLowerCase();
  const keyInMessageId = /^[0-9a-f]{64}$/.test(local) ? local : null;
  // A jsonpath string literal: JSON's escaping is jsonpath's.
  const intentValue = `$.* ? (@ == ${JSON.stringify(q)})`;
  const keyed = keyedEntries(
    sql`lower(args ->> 'to') = ${lower} or lower(intent ->> 'to') = ${lower}
        or result ->> 'messageId' in (${`<${bare}>`}, ${bare})
        or result ->> 'refundId' = ${q}
        or intent @? ${intentValue}::jsonpath
        or key = ${keyInMessageId}`,
    sql`effect_key = ${keyInMessageId}`,
  );
  const parts: LedgerPart[] = [keyed];
  // Keys are lower-case hex: a range on the effects' and approvals' keys, which a LIKE under a
  // locale cannot use.
  if (HEX_PREFIX.test(lower)) {
    const upTo = `${lower}g`;
    parts.push(
      keyedEntries(
        sql`key >= ${lower} and key < ${upTo}`,
        sql`effect_key >= ${lower} and effect_key < ${upTo}`,
      ),
    );
  }
  // A UUID names a task (its entries: taskParts) or a bulk action: the bulk's own stream
  // (requested with its members, each member's outcome, its end), by the (stream, seq) index.
  if (UUID.test(lower)) parts.push(...taskParts(lower), { stream: bulkStream(lower) });
  return parts;
}

/**
 * The entries about effects of `tool` (and approvals asked for it), in two parts that each walk
 * an index newest first: the entries whose data names the tool (every effect.* and
 * approval.requested entry does: ledger_entries_tool_at_idx), and the few keyed entries whose
 * data does not (outcome.resolved: ledger_entries_untooled_at_idx), matched by their key's
 * effect or approval one probe at a time. The tool is a function of the key (it is part of what
 * the key is derived from), so both parts together are the entries with a key of that tool.
 */
export function toolParts(tool: string): [SQL, SQL] {
  const e = ledgerEntries;
  return [
    sql`(${e.key} is not null and ${e.data} ->> 'tool' = ${tool})`,
    sql`(${e.key} is not null and ${e.data} ->> 'tool' is null
         and ((select f.tool from effects f where f.key = ${e.key}) = ${tool}
              or exists (select from approvals a where a.effect_key = ${e.key} and a.tool = ${tool})))`,
  ];
}

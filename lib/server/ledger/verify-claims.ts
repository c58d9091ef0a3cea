// The full pass's check of what checkpoints claim ("stream S had hash H at seq N"): the walk
// goes in the database's own stream order, which need not be the byte order the chunks are
// in, so the claims are checked apart, a chunk (or 10,000 heads of a one-entry checkpoint) per
// statement, each head one indexed lookup. Only the heads that fail come back.
import type { SqlClient } from "../../../db/client";
import { HEADS_PER_CHUNK } from "../../domain/checkpoint";
import { SYSTEM_STREAM } from "./append-ledger";
import { detachedStream } from "./archive-detach";
import type { ChainCheck } from "./chain-check";
import { type ClaimSource, readHeadsChunk } from "./checkpoint-chunks";
import type { LedgerProblem } from "./verify-checkpoint";

const short = (h: string) => `${h.slice(0, 12)}…`;

export type Failed = {
  stream: string;
  seq: number;
  hash: string;
  id: number | null;
  found: string | null;
  last: number | null;
};

/** Reports every claim of `sources` that the ledger no longer bears out. */
export async function checkClaims(
  client: SqlClient,
  check: ChainCheck,
  sources: readonly ClaimSource[],
  problem: (p: LedgerProblem) => void,
  /** Months detached after archiving: claims on their archived streams are the archives' to check. */
  detached: readonly string[] = [],
): Promise<void> {
  for (const source of sources) {
    if (source.kind === "list") {
      for (let i = 0; i < source.heads.length; i += HEADS_PER_CHUNK) {
        const slice = JSON.stringify(source.heads.slice(i, i + HEADS_PER_CHUNK));
        report(check, source.label, await failedClaims(client, slice, null, detached));
      }
      continue;
    }
    for (const [index, ref] of source.chunks.entries()) {
      const read = await readHeadsChunk(client, ref, index);
      if (!read.ok) {
        problem({
          stream: SYSTEM_STREAM,
          seq: ref.seq,
          entryId: null,
          problem: "bad_checkpoint",
          message: `${source.label}: ${read.problem}`,
        });
        continue;
      }
      // The heads are read in PostgreSQL from the entry just checked (append-only).
      report(check, source.label, await failedClaims(client, null, read.id, detached));
    }
  }
}

/**
 * The claims ("stream S had hash H at seq N") the ledger no longer bears out, in byte order, at
 * most `limit`: one indexed lookup per head, in one statement. The heads come as JSON, or from
 * a heads chunk entry by id (never sent back and forth). A claim on a stream archived and then
 * detached (a month in `detached`) is its archive's to check, not the database's.
 */
export async function failedClaims(
  client: SqlClient,
  heads: string | null,
  chunkId: number | null,
  detached: readonly string[],
  limit: number | null = null,
): Promise<Failed[]> {
  const { rows } = await client.query<Failed>(
    `select p.stream, p.seq, p.hash, e.id, e.hash as found,
            (select max(x.seq) from ledger_entries x where x.stream = p.stream) as last
       from jsonb_to_recordset(coalesce($1::jsonb,
              (select data->'heads' from ledger_entries where id = $2)))
            as p(stream text, seq bigint, hash text)
       left join ledger_entries e on e.stream = p.stream and e.seq = p.seq
      where e.hash is distinct from p.hash
        and not (e.id is null and exists (select 1 from ledger_streams s
                   where s.stream = p.stream and ${detachedStream(3)}))
      order by p.stream collate "C" limit $4`,
    [heads, chunkId, detached, limit],
  );
  return rows;
}

function report(check: ChainCheck, label: string, failed: readonly Failed[]): void {
  for (const f of failed) {
    const at = { stream: f.stream, seq: Number(f.seq) };
    if (f.found !== null) {
      check.report({
        ...at,
        entryId: Number(f.id),
        problem: "checkpoint_mismatch",
        message: `${f.stream} seq ${f.seq} hashes to ${short(f.found)}, but ${label} recorded ${short(f.hash)}: the stream was rewritten`,
      });
    } else if (f.last === null) {
      check.report({
        ...at,
        entryId: null,
        problem: "missing_stream",
        message: `stream ${f.stream} (seq ${f.seq} in ${label}) is gone: no entries and no head`,
      });
    } else {
      check.report({
        ...at,
        entryId: null,
        problem: "missing_entries",
        message: `${label} recorded ${f.stream} at seq ${f.seq}, but the stream ends at seq ${f.last}`,
      });
    }
  }
}

// Reading a chunked checkpoint's heads one chunk at a time, so neither writing the next
// checkpoint nor verifying against one holds more than a chunk of heads per checkpoint.
import type { SqlClient } from "../../../db/client";
import {
  CHECKPOINT_HEADS_KIND,
  type ChunkRef,
  compareBytes,
  headsChunkDataSchema,
  headsChunkProblem,
  type StreamHead,
} from "../../domain/checkpoint";
import { SYSTEM_STREAM } from "./append-ledger";

export type ReadChunk =
  | { ok: true; id: number; heads: StreamHead[] }
  | { ok: false; problem: string };

/** The heads of chunk `index` of a checkpoint, checked against the checkpoint's reference. */
export async function readHeadsChunk(
  client: SqlClient,
  ref: ChunkRef,
  index: number,
): Promise<ReadChunk> {
  const { rows } = await client.query<{ id: number; kind: string; data: unknown }>(
    "select id, kind, data from ledger_entries where stream = $1 and seq = $2",
    [SYSTEM_STREAM, ref.seq],
  );
  const row = rows[0];
  const what = `heads chunk ${index} (system seq ${ref.seq})`;
  if (!row) return { ok: false, problem: `${what} is gone` };
  if (row.kind !== CHECKPOINT_HEADS_KIND)
    return { ok: false, problem: `${what} is a ${row.kind} entry` };
  const parsed = headsChunkDataSchema.safeParse(row.data);
  if (!parsed.success) return { ok: false, problem: `${what} is malformed` };
  const problem = headsChunkProblem(parsed.data, ref, index);
  if (problem) return { ok: false, problem: `${what}: ${problem}` };
  return { ok: true, id: Number(row.id), heads: parsed.data.heads };
}

/**
 * Where a checkpoint's claims come from: the heads of a one-entry checkpoint (held whole, as
 * they always were), or the chunk list of a chunked one (read chunk by chunk).
 */
export type ClaimSource =
  | { label: string; kind: "list"; heads: StreamHead[] }
  | { label: string; kind: "chunks"; chunks: ChunkRef[] };

/** A chunk (at system seq `seq`) that does not check out. */
export type ChunkFailure = (source: ClaimSource, problem: string, seq: number) => void;

/**
 * The heads of one source in byte order, a chunk at a time: `until(stream)` returns those up
 * to and including `stream` not yet returned. A chunk that does not check out is reported and
 * skipped (its streams are then walked as if the checkpoint did not know them).
 */
export class HeadCursor {
  private buffer: StreamHead[] = [];
  private pos = 0;
  private next = 0;

  constructor(
    private readonly client: SqlClient,
    readonly source: ClaimSource,
    private readonly onFailure: ChunkFailure,
  ) {
    if (source.kind === "list") {
      this.buffer = [...source.heads].sort((a, b) => compareBytes(a.stream, b.stream));
    }
  }

  /** Heads up to `stream` (every remaining one with null). */
  async until(stream: string | null): Promise<StreamHead[]> {
    const out: StreamHead[] = [];
    for (;;) {
      while (this.pos < this.buffer.length) {
        const h = this.buffer[this.pos] as StreamHead;
        if (stream !== null && compareBytes(h.stream, stream) > 0) return out;
        out.push(h);
        this.pos += 1;
      }
      if (!(await this.load(stream))) return out;
    }
  }

  /** Loads the next chunk if it can hold streams up to `stream`; false when there is none. */
  private async load(stream: string | null): Promise<boolean> {
    const { source } = this;
    if (source.kind === "list") return false;
    while (this.next < source.chunks.length) {
      const ref = source.chunks[this.next] as ChunkRef;
      if (stream !== null && compareBytes(ref.first, stream) > 0) return false;
      const index = this.next;
      this.next += 1;
      const read = await readHeadsChunk(this.client, ref, index);
      if (read.ok) {
        this.buffer = read.heads;
        this.pos = 0;
        return true;
      }
      this.onFailure(source, read.problem, ref.seq);
    }
    return false;
  }
}

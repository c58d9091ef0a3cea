// agent-ledger export: the ledger as JSON Lines or CSV, read in keyset batches inside one
// read-only snapshot (so an export is the ledger as of one instant, however long it runs) and
// written with backpressure, so memory stays flat however large the ledger is.
import { once } from "node:events";
import { createWriteStream } from "node:fs";
import { rename, rm } from "node:fs/promises";
import type { Writable } from "node:stream";
import type pg from "pg";
import { z } from "zod";
import {
  ENTRY_TEXT_COLUMNS,
  type EntryTextRow,
  entryJsonLine,
} from "../../lib/server/ledger/entry-lines";
import { withAppDatabase } from "./operator";
import {
  type Command,
  EXIT,
  helpOption,
  isoInstant,
  parseOption,
  parseOptions,
  progressOption,
  startProgress,
  UsageError,
} from "./shared";

export const EXPORT_BATCH = 1000;

/** The columns, in order; JSON Lines uses the same names. */
export const EXPORT_COLUMNS = [
  "id",
  "stream",
  "seq",
  "at",
  "kind",
  "actor",
  "taskId",
  "key",
  "data",
  "prevHash",
  "hash",
] as const;

/** One CSV field (RFC 4180): quoted when it holds a comma, a quote or a line break; null is empty. */
export function csvField(value: string | number | null): string {
  if (value === null) return "";
  const s = String(value);
  return /[",\r\n]/.test(s) ? `"${s.replaceAll('"', '""')}"` : s;
}

/** One CSV record, CRLF-terminated as RFC 4180 has it. */
export function csvRecord(values: readonly (string | number | null)[]): string {
  return `${values.map(csvField).join(",")}\r\n`;
}

function csvLine(r: EntryTextRow): string {
  return csvRecord([
    r.id,
    r.stream,
    r.seq,
    r.at.toISOString(),
    r.kind,
    r.actor,
    r.task_id,
    r.key,
    r.data,
    r.prev_hash,
    r.hash,
  ]);
}

type Filter = { from?: Date; to?: Date; stream?: string };

const WINDOW = "($2::timestamptz is null or e.at >= $2) and ($3::timestamptz is null or e.at < $3)";

/**
 * Batches in ledger order. One stream is read by (stream, seq), its unique index; the whole
 * ledger by id. Within one stream both orders agree (appends lock the stream head).
 */
async function* ledgerBatches(client: pg.ClientBase, f: Filter): AsyncGenerator<EntryTextRow[]> {
  let after = 0;
  const params = [f.from?.toISOString() ?? null, f.to?.toISOString() ?? null];
  while (true) {
    const { rows } = f.stream
      ? await client.query<EntryTextRow>(
          `select ${ENTRY_TEXT_COLUMNS} from ledger_entries e
           where e.stream = $4 and e.seq > $1 and ${WINDOW} order by e.seq limit $5`,
          [after, ...params, f.stream, EXPORT_BATCH],
        )
      : await client.query<EntryTextRow>(
          `select ${ENTRY_TEXT_COLUMNS} from ledger_entries e
           where e.id > $1 and ${WINDOW} order by e.id limit $4`,
          [after, ...params, EXPORT_BATCH],
        );
    if (rows.length === 0) return;
    yield rows;
    const last = rows[rows.length - 1] as EntryTextRow;
    after = f.stream ? last.seq : last.id;
    if (rows.length < EXPORT_BATCH) return;
  }
}

async function countEntries(client: pg.ClientBase, f: Filter): Promise<number> {
  const { rows } = await client.query<{ n: number }>(
    `select count(*)::int as n from ledger_entries e
     where ($1::text is null or e.stream = $1) and ${WINDOW}`,
    [f.stream ?? null, f.from?.toISOString() ?? null, f.to?.toISOString() ?? null],
  );
  return rows[0]?.n ?? 0;
}

/** Writes wait for the destination to drain; a closed pipe (`| head`) ends the export. */
class Sink {
  error: NodeJS.ErrnoException | null = null;
  constructor(readonly out: Writable) {
    out.on("error", (err: NodeJS.ErrnoException) => {
      this.error ??= err;
    });
  }
  async write(chunk: string): Promise<void> {
    if (this.error) return;
    if (!this.out.write(chunk)) {
      // Drained, or closed (an error is recorded by the listener); the loser stops listening.
      const done = new AbortController();
      await Promise.race([
        once(this.out, "drain", { signal: done.signal }),
        once(this.out, "close", { signal: done.signal }),
      ]).catch(() => undefined);
      done.abort();
    }
  }
}

const formatSchema = z.enum(["jsonl", "csv"], { error: "must be jsonl or csv" });
const streamSchema = z
  .string()
  .min(1, { error: "must not be empty" })
  .max(300, { error: "must be at most 300 characters" });

export const exportCommand: Command = {
  name: "export",
  summary: "Export ledger entries as JSON Lines or CSV (streamed)",
  usage: `agent-ledger export --format jsonl|csv [--from TIME] [--to TIME] [--stream S] [--out FILE] [--progress]

Writes ledger entries in ledger order: ${EXPORT_COLUMNS.join(", ")}.
"data" is the entry's JSON as stored; "at" is ISO 8601 UTC. JSON Lines: one object per
line. CSV (RFC 4180): a header row, CRLF line ends, fields with a comma, a quote or a
line break quoted, quotes doubled, null as an empty field.

The export is one consistent snapshot: entries appended while it runs are not in it. It is
read in batches of ${EXPORT_BATCH}, so a ledger of any size exports in constant memory.

Options:
  --format F    jsonl or csv (required)
  --from TIME   entries at or after this ISO 8601 time (2025-06-01T00:00:00Z or 2025-06-01)
  --to TIME     entries before this time
  --stream S    one stream, e.g. task:<id> or system
  --out FILE    write to FILE (via FILE.partial, renamed when complete) instead of stdout
  --progress    progress on stderr even when it is not a terminal (it is shown on a terminal)
  -h, --help

Standard output carries only the entries; progress and errors go to stderr.

Exit codes: 0 exported (also when nothing matched), 1 no such stream, 2 could not run (bad
options, cannot write FILE, no database).`,
  run: async (argv) => {
    const opts = parseOptions(argv, {
      ...helpOption,
      ...progressOption,
      format: { type: "string" },
      from: { type: "string" },
      to: { type: "string" },
      stream: { type: "string" },
      out: { type: "string" },
    });
    if (opts.format === undefined) throw new UsageError("--format: is required (jsonl or csv)");
    const format = parseOption(formatSchema, opts.format, "--format");
    const filter: Filter = {
      from: opts.from === undefined ? undefined : parseOption(isoInstant, opts.from, "--from"),
      to: opts.to === undefined ? undefined : parseOption(isoInstant, opts.to, "--to"),
      stream:
        opts.stream === undefined ? undefined : parseOption(streamSchema, opts.stream, "--stream"),
    };
    if (filter.from && filter.to && filter.from >= filter.to) {
      throw new UsageError("--from must be before --to");
    }
    const file =
      opts.out === undefined
        ? undefined
        : parseOption(z.string().min(1, { error: "must name a file" }), opts.out, "--out");

    return withAppDatabase("export", async (pool) => {
      const client = await pool.connect();
      const partial = file ? `${file}.partial` : undefined;
      let out: Writable = process.stdout;
      let finished = false;
      try {
        await client.query("begin isolation level repeatable read read only");
        if (filter.stream) {
          const known = await client.query("select 1 from ledger_streams where stream = $1", [
            filter.stream,
          ]);
          if (known.rowCount === 0) {
            console.error(`agent-ledger export: no ledger stream "${filter.stream}"`);
            return EXIT.problem;
          }
        }
        const forced = opts.progress === true;
        const counting = forced || process.stderr.isTTY === true;
        const progress = startProgress({
          verb: "exported",
          unit: "entries",
          forced,
          total: counting ? await countEntries(client, filter) : undefined,
        });

        if (partial) {
          out = createWriteStream(partial, { flags: "w" });
          // once() rejects when the stream errors first (no such directory, no permission).
          await once(out, "open").catch((err: Error) => {
            throw new Error(`cannot write ${partial}: ${err.message}`);
          });
        }
        const sink = new Sink(out);
        if (format === "csv") await sink.write(csvRecord(EXPORT_COLUMNS));
        let n = 0;
        progress.update(0);
        for await (const rows of ledgerBatches(client, filter)) {
          await sink.write(rows.map(format === "csv" ? csvLine : entryJsonLine).join(""));
          if (sink.error) break;
          n += rows.length;
          progress.update(n);
        }
        if (sink.error?.code === "EPIPE") {
          // The reader stopped reading (`| head`): what it read is what it wanted.
          return EXIT.ok;
        }
        if (sink.error) throw sink.error;
        progress.finish();
        if (file && partial) {
          out.end();
          await once(out, "close");
          if (sink.error) throw sink.error;
          await rename(partial, file);
          finished = true;
          console.log(`Exported ${n} entries to ${file}.`);
        }
        return EXIT.ok;
      } finally {
        if (partial && !finished) {
          if (out !== process.stdout) out.destroy();
          await rm(partial, { force: true });
        }
        await client.query("rollback").catch(() => undefined);
        client.release();
      }
    });
  },
};

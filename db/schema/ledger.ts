import { sql } from "drizzle-orm";
import {
  bigint,
  check,
  date,
  index,
  integer,
  jsonb,
  pgTable,
  primaryKey,
  text,
  timestamp,
  unique,
  uuid,
} from "drizzle-orm/pg-core";

/** Head of each hash chain. Appends lock this row, so a chain never forks. */
export const ledgerStreams = pgTable(
  "ledger_streams",
  {
    stream: text("stream").primaryKey(),
    headSeq: bigint("head_seq", { mode: "number" }).notNull().default(0),
    headHash: text("head_hash").notNull(),
    createdAt: timestamp("created_at", { withTimezone: true }).notNull().defaultNow(),
    updatedAt: timestamp("updated_at", { withTimezone: true }).notNull().defaultNow(),
    /**
     * The archive (`agent-ledger archive`) that holds this stream; set once, never cleared.
     * From then on the stream is frozen: the guard trigger refuses moving its head (0053).
     */
    archivedIn: uuid("archived_in"),
    archivedAt: timestamp("archived_at", { withTimezone: true }),
    /**
     * The partition of ledger_entries that holds this stream's entries (migration 0055): the
     * UTC month a task's stream was opened; 1970-01-01 for every other stream, which is never
     * archived. A function of the stream, so a stream's entries never span two partitions.
     */
    month: date("month", { mode: "string" })
      .notNull()
      .generatedAlwaysAs(
        sql`CASE WHEN stream LIKE 'task:%' THEN date_trunc('month', created_at AT TIME ZONE 'UTC')::date ELSE date '1970-01-01' END`,
      ),
  },
  (t) => [
    check(
      "ledger_streams_archived_check",
      sql`(${t.archivedIn} is null) = (${t.archivedAt} is null)`,
    ),
    check("ledger_streams_head_seq_check", sql`${t.headSeq} >= 0`),
    check("ledger_streams_head_hash_check", sql`${t.headHash} ~ '^[0-9a-f]{64}$'`),
    // Byte order, whatever the database's collation: checkpoints write their heads in this
    // order in pages, and verify merges them with the head rows in the same order.
    index("ledger_streams_stream_c_idx").on(sql`${t.stream} collate "C"`),
    // verify --archive walks one archive's streams in byte order.
    index("ledger_streams_archived_in_idx")
      .on(t.archivedIn, sql`${t.stream} collate "C"`)
      .where(sql`${t.archivedIn} is not null`),
  ],
);

/**
 * Append-only: UPDATE, DELETE and TRUNCATE are rejected by trigger and by grants. Partitioned by
 * RANGE (month) in migration 0055 (drizzle-kit does not model partitions): one partition per
 * month, ledger_entries_unarchivable for the non-task streams, a default one as a safety net.
 */
export const ledgerEntries = pgTable(
  "ledger_entries",
  {
    id: bigint("id", { mode: "number" }).notNull().generatedAlwaysAsIdentity(),
    // No foreign keys (migration 0048): every append creates or locks its stream's head first,
    // and a key check per entry took a row lock on the head and on the task, WAL for each.
    // A task with entries cannot be deleted (trigger tasks_keep_ledgered); verify names an
    // entry whose stream has no head.
    stream: text("stream").notNull(),
    seq: bigint("seq", { mode: "number" }).notNull(),
    at: timestamp("at", { withTimezone: true, precision: 3 }).notNull(),
    kind: text("kind").notNull(),
    actor: text("actor").notNull(),
    taskId: uuid("task_id"),
    key: text("key"),
    data: jsonb("data").notNull(),
    hash: text("hash").notNull(),
    /**
     * The stream's month (ledger_streams.month), the partition key. Bookkeeping, not content:
     * no hash covers it and no export, file or API answer shows it.
     */
    month: date("month", { mode: "string" }).notNull(),
  },
  (t) => [
    // A partitioned table's keys hold its partition key; the month is a function of the
    // stream, so these still mean one entry per id and one per stream and seq.
    primaryKey({ name: "ledger_entries_pkey", columns: [t.id, t.month] }),
    unique("ledger_entries_stream_seq_key").on(t.stream, t.seq, t.month),
    check("ledger_entries_seq_check", sql`${t.seq} >= 1`),
    check("ledger_entries_kind_check", sql`${t.kind} ~ '^[a-z][a-z_]*(\\.[a-z][a-z_]*)*$'`),
    check("ledger_entries_hash_check", sql`${t.hash} ~ '^[0-9a-f]{64}$'`),

    // The time-ordered indexes are ascending and read backwards for newest first: a new entry
    // lands at the right end of its range, where a split leaves the left page full (declared
    // descending, each went to the left end and split pages in half; migration 0059).
    index("ledger_entries_kind_at_idx").on(t.kind, t.at, t.id),
    index("ledger_entries_at_idx").on(t.at, t.id),
    // Newest first by actor: the ledger's actor filter walks it instead of sorting every match.
    index("ledger_entries_actor_at_idx").on(t.actor, t.at, t.id),
    // A task's entries are read by its stream on the (stream, seq) key, newest first by seq
    // (within a stream, seq, time and id rise together: append-ledger.ts). The index on
    // (task_id, at, id) went in 0063 (88 bytes of WAL per entry); this one holds only the
    // entries naming a task from another stream (a bulk action's outcome for a member), so a
    // task's entries are its stream's and these. Reads by effect key go by the key's task's
    // stream too (a (key, id) index went in 0056; lib/server/queries/ledger-by-key.ts).
    index("ledger_entries_task_elsewhere_idx")
      .on(t.taskId, t.at, t.id)
      .where(sql`${t.taskId} is not null and ${t.stream} <> 'task:' || ${t.taskId}::text`),
    // The ledger's tool filter (ledger-filter-parts.ts toolParts): a tool is not a column, but
    // every effect and approval entry names it in its data; the few keyed entries that do not
    // (outcome.resolved) have an index of their own, matched by their key's effect.
    index("ledger_entries_tool_at_idx")
      .on(sql`(${t.data} ->> 'tool')`, t.at, t.id)
      .where(sql`${t.key} is not null`),
    index("ledger_entries_untooled_at_idx")
      .on(t.at, t.id)
      .where(sql`${t.key} is not null and (${t.data} ->> 'tool') is null`),
    // An effect's recorded result, one entry per effect (ledger-by-key.ts RESULT_KINDS): the task
    // page and GET /effects/{key} find it by key, not by walking the task's whole stream. A hash
    // index (0066): read only by equality, and an entry holds the key's 4-byte hash code, not
    // its 64 hex digits (a B-tree entry took 190 bytes of WAL per job, this one about 70).
    index("ledger_entries_result_key_idx")
      .using("hash", t.key)
      .where(sql`${t.kind} in ('effect.succeeded', 'outcome.resolved')`),
  ],
);

/**
 * An entry as readers see it: the month is where it is kept, not what it says; the hash it
 * chains onto is read from the entry before it (lib/server/ledger/prev-hash.ts), null when
 * that entry is gone.
 */
export type LedgerEntryRow = Omit<typeof ledgerEntries.$inferSelect, "month"> & {
  prevHash: string | null;
};

/**
 * Entries per kind since the start, kept by a statement trigger on ledger_entries (migration
 * 0022) in the appending transaction, so a reader's snapshot agrees with the ledger it sees: the
 * metrics scrape's lifetime counts read these few rows instead of counting millions of entries.
 * One row per kind and appending backend (pg_backend_pid), so concurrent appenders never wait on
 * each other's counter row (a row per kind would serialise every worker's commits); the rows of
 * backends that are gone are folded into a live one's by the trigger. The total is the sum.
 */
export const ledgerKindCounts = pgTable(
  "ledger_kind_counts",
  {
    kind: text("kind").notNull(),
    /** The appending backend's pid; 0 for what the migration counted. */
    backend: integer("backend").notNull(),
    entries: bigint("entries", { mode: "number" }).notNull(),
    /** Of these entries, those that carry an attempt's start (data.attemptStarted, 0057). */
    attempts: bigint("attempts", { mode: "number" }).notNull().default(0),
  },
  (t) => [
    primaryKey({ name: "ledger_kind_counts_pkey", columns: [t.kind, t.backend] }),
    check("ledger_kind_counts_entries_check", sql`${t.entries} >= 0`),
  ],
);

/**
 * Entries per kind and UTC hour, kept by the same statement trigger as ledger_kind_counts
 * (migration 0031): the overview's 24-hour, 7-day and 30-day charts add up at most 720 hours
 * per kind instead of reading every entry of the window (94k per kind at 10M entries). Rows
 * per appending backend as above, so appenders never wait on a shared counter row; hours that
 * ended more than an hour ago are folded into backend 0 by the first append of a new hour.
 */
export const ledgerHourlyCounts = pgTable(
  "ledger_hourly_counts",
  {
    kind: text("kind").notNull(),
    /** Start of the UTC hour the entries' `at` falls in. */
    hour: timestamp("hour", { withTimezone: true }).notNull(),
    /** The appending backend's pid; 0 for folded hours and what the migration counted. */
    backend: integer("backend").notNull(),
    entries: bigint("entries", { mode: "number" }).notNull(),
  },
  (t) => [
    primaryKey({ name: "ledger_hourly_counts_pkey", columns: [t.kind, t.hour, t.backend] }),
    check("ledger_hourly_counts_entries_check", sql`${t.entries} >= 0`),
    // The fold looks for the few rows not yet folded, never the whole history.
    index("ledger_hourly_counts_unfolded_idx").on(t.hour).where(sql`${t.backend} <> 0`),
  ],
);

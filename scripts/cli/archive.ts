// agent-ledger archive: the streams of tasks closed before a date, to signed files; the streams
// are then frozen (lib/server/ledger/archive.ts).
import { z } from "zod";
import { env } from "../../lib/env";
import { ArchiveRefused, archiveLedger } from "../../lib/server/ledger/archive";
import { ArchiveConflict } from "../../lib/server/ledger/archive-freeze";
import { parsePrivateKey } from "../../lib/server/ledger/signing";
import { cliActor, withAppDatabase } from "./operator";
import {
  type Command,
  EXIT,
  helpOption,
  isoInstant,
  jsonOption,
  parseOption,
  parseOptions,
  printJson,
  progressOption,
  startProgress,
  UsageError,
} from "./shared";

const dirSchema = z.string().min(1, { error: "must name a directory" });

export const archiveCommand: Command = {
  name: "archive",
  summary: "Write the streams of tasks closed before a date to signed files, then freeze them",
  usage: `agent-ledger archive --before DATE --to DIR [--keep-entries] [--dry-run] [--json]
                           [--progress | --quiet]

Archives the ledger streams of tasks that ended (succeeded, rejected or cancelled) before DATE
and are not archived yet. A task still open, or dead (it may be replayed), is never archived;
neither is the system stream.

Into DIR (created; it must be empty) it writes:
  entries.jsonl.gz  every entry of those streams, as export --format jsonl writes them,
                    by stream (byte order), then seq
  heads.jsonl.gz    one line per stream: stream, seq, hash, taskId, closedAt
  statement.json    {statement: {type, archiveId, before, at, streams, entries, headsDigest,
                    files: {entries, heads: {sha256, bytes}}, keyId}, algorithm, publicKey,
                    signature}, signed with LEDGER_SIGNING_KEY (Ed25519)

It reads one snapshot, verifies the files, then in one transaction checks that no stream moved
since, marks them archived and appends a ledger.archived entry to the system stream naming
the statement's digest. From then on the database refuses every append to those streams.

Then every past month (UTC) whose streams are now all archived loses its partition of the
ledger (the streams are partitioned by the month they were opened in): the entries leave the
database, a ledger.detached entry in the system stream names the month, the count and the
archives that hold them. Keep the archive directories: agent-ledger verify --archive DIR checks
them, and the task page and /why read an archived task from them (LEDGER_ARCHIVE_DIR). A
month with a stream not archived yet waits for a later run (so does every month with
--keep-entries; a later run without it detaches them).

Options:
  --before DATE    ISO 8601 date (2025-06-01, UTC midnight) or time with a zone (required)
  --to DIR         the directory to write (required)
  --keep-entries   archive and freeze, but detach no month: the entries stay in the database
  --dry-run        say how many streams and entries would be archived and which months may be
                   detached now; write nothing
  --json           print the result as JSON
  --progress       progress on stderr even when it is not a terminal (it is shown on a terminal)
  --quiet          no progress
  -h, --help

Exit codes: 0 archived (or nothing to archive, or a dry run), 1 refused: a stream moved while
archiving (run again), or the ledger or the files written did not verify; nothing was archived
and no file is left in DIR. 2 could not run (bad options, no LEDGER_SIGNING_KEY, DIR not
empty, no database). A month that could not be detached (e.g. the ledger stayed busy past the
lock timeout) is reported and left for the next run; the archive stands (exit 0).`,
  run: async (argv) => {
    const opts = parseOptions(argv, {
      ...helpOption,
      ...jsonOption,
      ...progressOption,
      quiet: { type: "boolean" },
      before: { type: "string" },
      to: { type: "string" },
      "dry-run": { type: "boolean" },
      "keep-entries": { type: "boolean" },
    });
    if (opts.before === undefined) throw new UsageError("--before: is required (a date or time)");
    if (opts.to === undefined) throw new UsageError("--to: is required (a directory)");
    const before = parseOption(isoInstant, opts.before, "--before");
    const dir = parseOption(dirSchema, opts.to, "--to");
    const dryRun = opts["dry-run"] === true;
    const { LEDGER_SIGNING_KEY } = env();
    const signingKey = LEDGER_SIGNING_KEY ? parsePrivateKey(LEDGER_SIGNING_KEY) : undefined;

    return withAppDatabase("archive", async (pool) => {
      const progress = startProgress({
        verb: "archived",
        unit: "entries",
        forced: opts.progress === true,
        quiet: opts.quiet === true || opts.json === true,
      });
      let result: Awaited<ReturnType<typeof archiveLedger>>;
      try {
        result = await archiveLedger(pool, {
          before,
          dir,
          actor: cliActor(),
          signingKey,
          dryRun,
          keepEntries: opts["keep-entries"] === true,
          onProgress: progress.update,
        });
      } catch (err) {
        if (err instanceof ArchiveConflict || (err instanceof ArchiveRefused && err.found)) {
          console.error(`agent-ledger archive: refused: ${err.message}`);
          return EXIT.problem;
        }
        throw err;
      }
      progress.finish();
      if (opts.json) {
        printJson({ ...result, before: before.toISOString() });
        return EXIT.ok;
      }
      const when = before.toISOString();
      if (result.outcome === "dry_run") {
        console.log(
          `Dry run: ${result.streams} streams (${result.entries} entries) of tasks closed before ${when} would be archived. Nothing written.`,
        );
        for (const m of result.detachable) {
          console.log(
            `Month ${m.month} (${m.streams} streams, ${m.entries} entries) is archived whole and may be detached now.`,
          );
        }
      } else if (result.outcome === "nothing") {
        console.log(
          `Nothing to archive: no task closed before ${when} has a stream left to archive.`,
        );
      } else {
        console.log(
          `Archived ${result.streams} streams (${result.entries} entries) of tasks closed before ${when} to ${result.dir}.`,
        );
        console.log(`archive ${result.archiveId}`);
        console.log(
          `statement digest ${result.statementDigest} (ledger.archived at system seq ${result.systemSeq})`,
        );
        console.log("The streams are frozen: the database refuses appends to them.");
      }
      if (result.outcome !== "dry_run") {
        for (const m of result.detached) {
          console.log(
            `Detached ${m.month}: ${m.entries} entries of ${m.streams} streams left the database (ledger.detached at system seq ${m.systemSeq}; archives ${m.archives.join(", ")}).`,
          );
        }
        if (result.detachError) {
          console.error(
            `agent-ledger archive: a month could not be detached (${result.detachError}); the archive stands, run again later to detach it`,
          );
        }
      }
      return EXIT.ok;
    });
  },
};

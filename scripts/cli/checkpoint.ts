import { readFile, rename, writeFile } from "node:fs/promises";
import { createPool } from "../../db/client";
import { openDatabase } from "../../db/open";
import {
  type CheckpointStatement,
  checkpointExportSchema,
  statementText,
} from "../../lib/domain/checkpoint";
import { env } from "../../lib/env";
import { CheckpointRefused, writeCheckpoint } from "../../lib/server/commands/write-checkpoint";
import { generateSigningKey, parsePrivateKey } from "../../lib/server/ledger/signing";
import { cliActor } from "./operator";
import {
  type Command,
  EXIT,
  helpOption,
  jsonOption,
  parseOptions,
  printJson,
  UsageError,
} from "./shared";

/** The statement an earlier run exported to FILE, if there is one. */
async function previousExport(file: string): Promise<CheckpointStatement | undefined> {
  let text: string;
  try {
    text = await readFile(file, "utf8");
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === "ENOENT") return undefined;
    throw err;
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    json = undefined;
  }
  const parsed = checkpointExportSchema.safeParse(json);
  if (!parsed.success) {
    throw new UsageError(`--export: ${file} exists but is not a checkpoint statement`);
  }
  return parsed.data.statement;
}

export const checkpointCommand: Command = {
  name: "checkpoint",
  summary: "Append a signed checkpoint of every stream head to the system stream",
  usage: `agent-ledger checkpoint [--export FILE] [--json] [--actor NAME]
agent-ledger checkpoint --new-key [--json]

Appends every stream's head (seq and hash) to the system stream in ledger.checkpoint_heads
entries of up to 10,000 streams each, then a ledger.checkpoint entry listing those chunks with
one sha256 root over the list, and a statement {seq, at, digest, streams, keyId} signed
with Ed25519 when LEDGER_SIGNING_KEY is set. A later verify then detects a stream that was
deleted whole or rewritten. With a key configured, verify requires a checkpoint no older than
LEDGER_CHECKPOINT_MAX_AGE_HOURS (25 h): run this on a schedule (cron, a systemd timer).

A superuser can still delete checkpoints inside the database. Keep each statement outside
it (--export, then copy the file to write-once storage) and check against it with
agent-ledger verify --expect FILE.

It refuses (exit 1, nothing written) when the ledger no longer extends the previous checkpoint,
or the statement already in FILE: a stream it recorded is gone or rewritten. Signing over that
would hide the loss.

Options:
  --export FILE  also write the signed statement as JSON to FILE (via FILE.partial, renamed)
  --actor NAME   who is recorded as writing it (default: cli:<os user>)
  --new-key      print a fresh Ed25519 key pair for LEDGER_SIGNING_KEY / LEDGER_PUBLIC_KEY
  --json         print the result as JSON
  -h, --help

Exit codes: 0 written (or a key printed), 1 refused (see above), 2 could not run (bad options,
a bad LEDGER_SIGNING_KEY, no database, FILE not writable or not a statement).`,
  run: async (argv) => {
    const opts = parseOptions(argv, {
      ...helpOption,
      ...jsonOption,
      actor: { type: "string" },
      export: { type: "string" },
      "new-key": { type: "boolean" },
    });
    if (opts["new-key"]) {
      const key = generateSigningKey();
      if (opts.json) printJson(key);
      else {
        console.log(`LEDGER_SIGNING_KEY=${key.privateKey}`);
        console.log(`LEDGER_PUBLIC_KEY=${key.publicKey}`);
      }
      return EXIT.ok;
    }
    const { LEDGER_SIGNING_KEY } = env();
    const signingKey = LEDGER_SIGNING_KEY ? parsePrivateKey(LEDGER_SIGNING_KEY) : undefined;
    const actor = opts.actor ?? cliActor();
    const previous = opts.export ? await previousExport(opts.export) : undefined;
    const db = await openDatabase();
    const pool = createPool(db.appUrl, { max: 1, applicationName: "agent-ledger-checkpoint" });
    try {
      let result: Awaited<ReturnType<typeof writeCheckpoint>>;
      try {
        result = await writeCheckpoint(pool, { actor, signingKey, previous });
      } catch (err) {
        if (!(err instanceof CheckpointRefused)) throw err;
        console.error(`agent-ledger checkpoint: refused: ${err.message}`);
        return EXIT.problem;
      }
      if (opts.export) {
        // Written whole or not at all, so a shipper never copies half a statement.
        const partial = `${opts.export}.partial`;
        await writeFile(partial, `${JSON.stringify(result.export, null, 2)}\n`, { mode: 0o644 });
        await rename(partial, opts.export);
      }
      if (opts.json) printJson(result);
      else {
        console.log(
          `Checkpoint written at system seq ${result.seq}: ${result.streams} streams in ${result.chunks} chunk(s), ${result.signed ? "signed" : "unsigned (set LEDGER_SIGNING_KEY to sign)"}.`,
        );
        console.log(`digest ${result.digest}`);
        console.log(`statement ${statementText(result.export.statement)}`);
        if (result.export.signature) console.log(`signature ${result.export.signature}`);
        if (opts.export) console.log(`exported to ${opts.export}`);
      }
      return EXIT.ok;
    } finally {
      await pool.end();
      await db.release();
    }
  },
};

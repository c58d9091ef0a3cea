import { createPool } from "../../db/client";
import { openDatabase } from "../../db/open";
import { env } from "../../lib/env";
import { writeCheckpoint } from "../../lib/server/commands/write-checkpoint";
import { generateSigningKey, parsePrivateKey } from "../../lib/server/ledger/signing";
import { cliActor } from "./operator";
import { type Command, EXIT, helpOption, jsonOption, parseOptions, printJson } from "./shared";

export const checkpointCommand: Command = {
  name: "checkpoint",
  summary: "Append a signed checkpoint of every stream head to the system stream",
  usage: `agent-ledger checkpoint [--json] [--actor NAME]
agent-ledger checkpoint --new-key [--json]

Appends a ledger.checkpoint entry to the system stream holding every stream's head (seq and
hash) and a sha256 digest over them, signed with Ed25519 when LEDGER_SIGNING_KEY is set. A
later verify then detects a stream that was deleted whole. Keep the printed digest somewhere
outside the database to anchor the ledger.

Options:
  --actor NAME  who is recorded as writing it (default: cli:<os user>)
  --new-key     print a fresh Ed25519 key pair for LEDGER_SIGNING_KEY / LEDGER_PUBLIC_KEY
  --json        print the result as JSON
  -h, --help

Exit codes: 0 written (or a key printed), 2 could not run (bad options, a bad
LEDGER_SIGNING_KEY, no database).`,
  run: async (argv) => {
    const opts = parseOptions(argv, {
      ...helpOption,
      ...jsonOption,
      actor: { type: "string" },
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
    const db = await openDatabase();
    const pool = createPool(db.appUrl, { max: 1, applicationName: "agent-ledger-checkpoint" });
    try {
      const result = await writeCheckpoint(pool, { actor, signingKey });
      if (opts.json) printJson(result);
      else {
        console.log(
          `Checkpoint written at system seq ${result.seq}: ${result.streams} streams, ${result.signed ? "signed" : "unsigned (set LEDGER_SIGNING_KEY to sign)"}.`,
        );
        console.log(`digest ${result.digest}`);
      }
      return EXIT.ok;
    } finally {
      await pool.end();
      await db.release();
    }
  },
};

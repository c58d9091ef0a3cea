// agent-ledger enqueue: start a task from a shell or a script. The command (enqueue-task.ts)
// checks the input against the input JSON Schema the workers published for the agent
// (agent_catalog), so a typo is refused here instead of dead-lettering later; with --key,
// running the same command twice enqueues once.
import { readFile } from "node:fs/promises";
import { z } from "zod";
import { canonicalJson, toJsonValue } from "../../lib/domain/json";
import { prioritySchema } from "../../lib/domain/priority";
import { describeIssues } from "../../lib/domain/zod-issues";
import { type EnqueueRefusal, enqueueTask } from "../../lib/server/commands/enqueue-task";
import { ENQUEUE_CHUNK } from "../../lib/server/commands/enqueue-tasks";
import { enqueueLines, isJsonLines } from "./enqueue-lines";
import { cliPrincipal, withAppDatabase } from "./operator";
import {
  type Command,
  EXIT,
  helpOption,
  isoInstant,
  jsonOption,
  parseOption,
  parseOptions,
  printJson,
  readAll,
  UsageError,
} from "./shared";

/** --priority N: a whole number, as the library and the API bound it. */
const priorityOption = z
  .string()
  .regex(/^[+-]?\d+$/, "must be a whole number from -1000 to 1000")
  .transform(Number)
  .pipe(prioritySchema);

const USAGE = `agent-ledger enqueue --agent A --input JSON|@FILE|- [--key K] [--run-at TIME] [--priority N] [--json]
agent-ledger enqueue --input @FILE.jsonl [--agent A] [--run-at TIME] [--priority N] [--json]

Enqueues one task for agent A. The input is JSON: written inline, read from a file (@FILE),
or from standard input (-). It is checked against the input schema the agent's workers
published (agent_catalog); an agent no worker has published is refused, with the known ones.

Many tasks: a file named *.jsonl or *.ndjson (or any file, or -, with --jsonl) holds one task
per line: {"agent": "A", "input": {...}, "key": "K", "runAt": "TIME", "priority": N}; only agent
is needed, and --agent, --run-at and --priority are the defaults for lines without them (input defaults to {}; blank
lines are skipped). The file is read as a stream and enqueued ${ENQUEUE_CHUNK} lines at a time, all in one
transaction: the whole file or nothing. A bad line (not JSON, not a task, an unknown agent, an
input the schema refuses, a key taken by another input) enqueues nothing and is reported by
its line number. With --json, one line of JSON per task: {"line", "taskId", "created",
"agent", "key"}.

With --key, enqueueing is idempotent: the first run creates the task, a later run with the
same key, agent and input prints the same task and enqueues nothing (the output says which).
The same key with another agent or input is refused.

Options:
  --agent A       the agent's name, e.g. invoice-reminder
  --input JSON    the task input: JSON, @path/to/file.json, or - for standard input;
                  @path/to/tasks.jsonl for one task per line
  --jsonl         read --input as JSON Lines, whatever the file is called
  --key K         an idempotency key for this enqueue (at most 200 characters)
  --run-at TIME   not before this ISO 8601 time (2025-06-01T09:00:00Z); default now
  --priority N    higher is claimed first among the tasks runnable now (-1000 to 1000,
                  default 0): an urgent task before a bulk import's
  --json          print {"taskId", "created", "agent", "key"}
  -h, --help

Recorded in the task's ledger stream as task.enqueued by "cli:<os user>".

Exit codes: 0 enqueued (or the key's task already existed), 1 refused (unknown agent, key
taken by another input), 2 could not run (bad options, input not JSON or not matching the
agent's schema, no database).`;

const agentSchema = z
  .string({ error: "is required" })
  .trim()
  .min(1, { error: "must not be empty" })
  .max(200, { error: "must be at most 200 characters" });
const keySchema = z
  .string()
  .min(1, { error: "must not be empty" })
  .max(200, { error: "must be at most 200 characters" });

/** The --input text (inline JSON, @file or - for standard input) and where it came from. */
async function inputText(value: string | undefined): Promise<{ text: string; from: string }> {
  if (value === undefined) throw new UsageError("--input: is required (JSON, @file or -)");
  if (value === "-") return { text: await readAll(process.stdin), from: "standard input " };
  if (value.startsWith("@")) {
    const file = value.slice(1);
    try {
      return { text: await readFile(file, "utf8"), from: `${file} ` };
    } catch (err) {
      throw new UsageError(`--input: cannot read ${file}: ${(err as Error).message}`);
    }
  }
  return { text: value, from: "" };
}

async function readInput(value: string | undefined): Promise<unknown> {
  const { text, from } = await inputText(value);
  try {
    return JSON.parse(text);
  } catch (err) {
    throw new UsageError(`--input: ${from}is not JSON: ${(err as Error).message}`);
  }
}

/** The refusal in the CLI's words, with its exit code. */
function refusalOf(agent: string, refusal: EnqueueRefusal): { exit: number; message: string } {
  switch (refusal.code) {
    case "not_found":
      return {
        exit: EXIT.problem,
        message:
          refusal.known.length === 0
            ? `no agent "${agent}": no worker has published its agents yet (start one: agent-ledger worker)`
            : `no agent "${agent}"; known agents: ${refusal.known.join(", ")}`,
      };
    case "invalid":
      return {
        exit: EXIT.error,
        message: `--input does not match ${agent}'s input schema: ${describeIssues(refusal.issues, "input.")}`,
      };
    case "forbidden":
      return { exit: EXIT.problem, message: refusal.message };
  }
}

export const enqueueCommand: Command = {
  name: "enqueue",
  summary: "Enqueue a task for an agent (idempotent with --key)",
  usage: USAGE,
  run: async (argv) => {
    const opts = parseOptions(argv, {
      ...helpOption,
      ...jsonOption,
      agent: { type: "string" },
      input: { type: "string" },
      key: { type: "string" },
      "run-at": { type: "string" },
      priority: { type: "string" },
      jsonl: { type: "boolean" },
    });
    const priority =
      opts.priority === undefined
        ? undefined
        : parseOption(priorityOption, opts.priority, "--priority");
    if (isJsonLines(opts.input, opts.jsonl === true)) {
      if (opts.key !== undefined) {
        throw new UsageError('--key: names one task; give each line its own "key"');
      }
      if (opts.input === undefined) throw new UsageError("--input: is required (@file.jsonl or -)");
      if (opts.input !== "-" && !opts.input.startsWith("@")) {
        throw new UsageError("--input: with --jsonl, give @file or - for standard input");
      }
      return enqueueLines({
        input: opts.input,
        agent:
          opts.agent === undefined ? undefined : parseOption(agentSchema, opts.agent, "--agent"),
        runAt:
          opts["run-at"] === undefined
            ? undefined
            : parseOption(isoInstant, opts["run-at"], "--run-at"),
        priority,
        json: opts.json === true,
      });
    }
    const agent = parseOption(agentSchema, opts.agent, "--agent");
    const key = opts.key === undefined ? undefined : parseOption(keySchema, opts.key, "--key");
    const runAt =
      opts["run-at"] === undefined
        ? undefined
        : parseOption(isoInstant, opts["run-at"], "--run-at");
    const raw = await readInput(opts.input);
    let input: ReturnType<typeof toJsonValue>;
    try {
      input = toJsonValue(raw, "input");
    } catch (err) {
      throw new UsageError(`--input: ${(err as Error).message}`);
    }

    return withAppDatabase("enqueue", async (pool) => {
      const outcome = await enqueueTask(pool, cliPrincipal(), {
        agent,
        input,
        key,
        runAt,
        priority,
      });
      if (!outcome.ok) {
        const { exit, message } = refusalOf(agent, outcome);
        console.error(`agent-ledger enqueue: ${message}`);
        return exit;
      }
      const result = outcome.value;
      if (result.unchecked) {
        console.error(
          `agent-ledger enqueue: warning: ${result.unchecked}; the worker will check the input`,
        );
      }
      if (!result.created) {
        // The key is the caller's promise that this is the same request; hold them to it.
        const { rows } = await pool.query<{ agent: string; input: unknown }>(
          "select agent, input from tasks where id = $1",
          [result.taskId],
        );
        const first = rows[0];
        if (
          !first ||
          first.agent !== agent ||
          canonicalJson(first.input) !== canonicalJson(input)
        ) {
          console.error(
            `agent-ledger enqueue: key "${key}" already names task ${result.taskId}${first && first.agent !== agent ? ` of agent ${first.agent}` : ""} with other input; nothing was enqueued`,
          );
          return EXIT.problem;
        }
      }
      if (opts.json) {
        printJson({
          taskId: result.taskId,
          created: result.created,
          agent,
          key: key ?? null,
        });
      } else if (result.created) {
        console.log(
          `Enqueued task ${result.taskId} for ${agent}${runAt ? `, to run at or after ${runAt.toISOString()}` : ""}.`,
        );
      } else {
        console.log(`Task ${result.taskId} already exists for key "${key}"; nothing was enqueued.`);
      }
      return EXIT.ok;
    });
  },
};

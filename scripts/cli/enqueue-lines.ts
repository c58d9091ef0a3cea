// agent-ledger enqueue --input @tasks.jsonl: one task per line, read as a stream and enqueued
// ENQUEUE_CHUNK lines per statement (enqueue-tasks.ts: the same checks as one enqueue), all in
// one transaction, so the file goes in whole or not at all: a bad line rolls back every line
// before it and is reported by its line number, and the corrected file can simply be run again.
import { createReadStream } from "node:fs";
import { access } from "node:fs/promises";
import { createInterface } from "node:readline";
import { z } from "zod";
import { withTransaction } from "../../db/client";
import { canonicalJson, toJsonValue } from "../../lib/domain/json";
import { prioritySchema } from "../../lib/domain/priority";
import { describeIssues } from "../../lib/domain/zod-issues";
import {
  ENQUEUE_CHUNK,
  type EnqueueRequest,
  enqueueTasks,
} from "../../lib/server/commands/enqueue-tasks";
import { cliPrincipal, withAppDatabase } from "./operator";
import { EXIT, isoInstant, UsageError } from "./shared";

/** A file read as JSON Lines: by its name, or any file (or -) with --jsonl. */
export function isJsonLines(input: string | undefined, forced: boolean): boolean {
  return forced || (input?.startsWith("@") === true && /\.(jsonl|ndjson)$/i.test(input));
}

const lineSchema = z
  .object(
    {
      agent: z
        .string({ error: "must be a string" })
        .trim()
        .min(1, { error: "must not be empty" })
        .max(200, { error: "must be at most 200 characters" })
        .optional(),
      input: z.json({ error: "must be JSON" }).default({}),
      key: z
        .string({ error: "must be a string" })
        .min(1, { error: "must not be empty" })
        .max(200, { error: "must be at most 200 characters" })
        .optional(),
      runAt: isoInstant.optional(),
      priority: prioritySchema.optional(),
    },
    {
      error: (issue) =>
        issue.code === "unrecognized_keys"
          ? `unknown field ${issue.keys.map((k) => `"${k}"`).join(", ")}: each line is a task, {"agent", "input", "key", "runAt", "priority"}`
          : issue.code === "invalid_type"
            ? 'must be a task object: {"agent", "input", "key", "runAt", "priority"}'
            : undefined,
    },
  )
  .strict();

type Line = { line: number; request: EnqueueRequest };
type Done = { line: number; taskId: string; created: boolean; agent: string; key: string | null };

/** Why the file was not enqueued; thrown inside the transaction to roll it back. */
class Refused extends Error {
  constructor(
    readonly exit: number,
    message: string,
  ) {
    super(message);
  }
}

/** What a line without its own agent, runAt or priority gets: the command's options. */
type LineDefaults = { agent?: string; runAt?: Date; priority?: number };

function parseLine(text: string, line: number, defaults: LineDefaults): Line {
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch (err) {
    throw new Refused(EXIT.error, `line ${line}: is not JSON: ${(err as Error).message}`);
  }
  const parsed = lineSchema.safeParse(raw);
  if (!parsed.success) {
    throw new Refused(EXIT.error, `line ${line}: ${describeIssues(parsed.error)}`);
  }
  const task = parsed.data;
  const name = task.agent ?? defaults.agent;
  if (!name) {
    throw new Refused(EXIT.error, `line ${line}: agent: is required (in the line, or --agent A)`);
  }
  let input: ReturnType<typeof toJsonValue>;
  try {
    input = toJsonValue(task.input, "input");
  } catch (err) {
    throw new Refused(EXIT.error, `line ${line}: ${(err as Error).message}`);
  }
  return {
    line,
    request: {
      agent: name,
      input,
      key: task.key,
      runAt: task.runAt ?? defaults.runAt,
      priority: task.priority ?? defaults.priority,
      unpublished: "refuse",
    },
  };
}

/** Every line of `from` (a path, or standard input for "-"), numbered from 1. */
async function* numberedLines(from: string): AsyncGenerator<{ text: string; line: number }> {
  const stream = from === "-" ? process.stdin : createReadStream(from, { encoding: "utf8" });
  const lines = createInterface({ input: stream, crlfDelay: Number.POSITIVE_INFINITY });
  let line = 0;
  for await (const text of lines) {
    line++;
    yield { text, line };
  }
}

export async function enqueueLines(opts: {
  /** "-" or @path. */
  input: string;
  agent?: string;
  runAt?: Date;
  priority?: number;
  json: boolean;
}): Promise<number> {
  const from = opts.input === "-" ? "-" : opts.input.slice(1);
  const label = from === "-" ? "standard input" : from;
  if (from !== "-") {
    // Fail on a missing file before connecting, as a single --input @file does.
    try {
      await access(from);
    } catch (err) {
      throw new UsageError(`--input: cannot read ${from}: ${(err as Error).message}`);
    }
  }
  const principal = cliPrincipal();
  return withAppDatabase("enqueue", async (pool) => {
    let done: Done[];
    try {
      done = await withTransaction(pool, async (client) => {
        const results: Done[] = [];
        let batch: Line[] = [];
        const flush = async () => {
          if (batch.length === 0) return;
          const outcome = await enqueueTasks(
            client,
            principal,
            batch.map((b) => b.request),
          );
          if (!outcome.ok) {
            if (outcome.code === "forbidden") throw new Refused(EXIT.problem, outcome.message);
            const invalid = outcome.items.some((i) => i.refusal.code === "invalid");
            const lines = outcome.items.map((i) => {
              const { refusal } = i;
              const at = batch[i.index];
              const what =
                refusal.code === "invalid"
                  ? `does not match ${at?.request.agent}'s input schema: ${describeIssues(refusal.issues, "input.")}`
                  : `no agent "${at?.request.agent}"; known agents: ${refusal.known.join(", ") || "none yet (start one: agent-ledger worker)"}`;
              return `line ${at?.line}: ${what}`;
            });
            throw new Refused(invalid ? EXIT.error : EXIT.problem, lines.join("\n"));
          }
          const existing = outcome.value.filter((v) => !v.created).map((v) => v.taskId);
          const stored = new Map<string, { agent: string; input: unknown }>();
          if (existing.length > 0) {
            const { rows } = await client.query<{ id: string; agent: string; input: unknown }>(
              "select id, agent, input from tasks where id = any($1::uuid[])",
              [existing],
            );
            for (const r of rows) stored.set(r.id, r);
          }
          for (const [i, v] of outcome.value.entries()) {
            const at = batch[i] as Line;
            if (!v.created) {
              // A key is the caller's promise that this is the same task; hold them to it.
              const first = stored.get(v.taskId);
              if (
                !first ||
                first.agent !== at.request.agent ||
                canonicalJson(first.input) !== canonicalJson(at.request.input)
              ) {
                throw new Refused(
                  EXIT.problem,
                  `line ${at.line}: key "${at.request.key}" already names task ${v.taskId}${first && first.agent !== at.request.agent ? ` of agent ${first.agent}` : ""} with other input`,
                );
              }
            }
            results.push({
              line: at.line,
              taskId: v.taskId,
              created: v.created,
              agent: at.request.agent,
              key: at.request.key ?? null,
            });
          }
          batch = [];
        };
        for await (const { text, line } of numberedLines(from)) {
          if (text.trim() === "") continue;
          batch.push(parseLine(text, line, opts));
          if (batch.length >= ENQUEUE_CHUNK) await flush();
        }
        await flush();
        return results;
      });
    } catch (err) {
      if (!(err instanceof Refused)) throw err;
      console.error(
        err.message
          .split("\n")
          .map((l) => `agent-ledger enqueue: ${label}: ${l}`)
          .join("\n"),
      );
      console.error("agent-ledger enqueue: nothing was enqueued");
      return err.exit;
    }
    if (opts.json) {
      for (const d of done) process.stdout.write(`${JSON.stringify(d)}\n`);
    } else {
      const created = done.filter((d) => d.created).length;
      const agents = new Set(done.map((d) => d.agent)).size;
      console.log(
        `Enqueued ${done.length} tasks from ${label} for ${agents} agent${agents === 1 ? "" : "s"}: ${created} new, ${done.length - created} already existed for their key.`,
      );
    }
    return EXIT.ok;
  });
}

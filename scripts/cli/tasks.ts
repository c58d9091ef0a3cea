import { z } from "zod";
import { TASK_STATUSES } from "../../lib/domain/task-states";
import { getTaskDetail, type TaskDetailDto } from "../../lib/server/queries/get-task-detail";
import { listTasks, type TaskSearch, taskSearchSchema } from "../../lib/server/queries/list-tasks";
import {
  compactJson,
  formatTable,
  noSuchTask,
  operatorViewer,
  parseTaskId,
  shortTime,
  withAppDatabase,
} from "./operator";
import {
  commandGroup,
  EXIT,
  helpOption,
  jsonOption,
  parseCommandLine,
  parseOption,
  parseOptions,
  printJson,
  type Subcommand,
  wholeNumber,
} from "./shared";

const NOTES = `Statuses: ${TASK_STATUSES.join(", ")}.

Exit codes: 0 ok, 1 no such task, 2 could not run (bad options, no database).`;

const statusSchema = taskSearchSchema.shape.status;
const cursorSchema = taskSearchSchema.shape.before;

const list: Subcommand["run"] = async (argv) => {
  const opts = parseOptions(argv, {
    ...helpOption,
    ...jsonOption,
    status: { type: "string" },
    agent: { type: "string" },
    limit: { type: "string", default: "25" },
    before: { type: "string" },
  });
  const search: TaskSearch = {
    status: parseOption(statusSchema, opts.status, "--status"),
    before: parseOption(cursorSchema, opts.before, "--before"),
  };
  const limit = parseOption(wholeNumber(1, 1000), opts.limit, "--limit");
  const agent =
    opts.agent === undefined
      ? undefined
      : parseOption(
          z.string().trim().min(1, { error: "must not be empty" }),
          opts.agent,
          "--agent",
        );
  return withAppDatabase("tasks", async (_pool, db) => {
    const page = await listTasks(db, operatorViewer(), { ...search, agent }, limit);
    if (opts.json) {
      printJson(page);
      return EXIT.ok;
    }
    if (page.tasks.length === 0) {
      console.log("No tasks match.");
      return EXIT.ok;
    }
    console.log(
      formatTable(
        ["ID", "AGENT", "STATUS", "ATTEMPTS", "CREATED", "LAST ERROR"],
        page.tasks.map((t) => [
          t.id,
          t.agent,
          t.deadReason ? `${t.status} (${t.deadReason})` : t.status,
          String(t.attempts),
          shortTime(t.createdAt),
          (t.lastError ?? "").replace(/\s+/g, " ").slice(0, 80),
        ]),
      ),
    );
    if (page.olderBefore) {
      const again = [
        "agent-ledger tasks list",
        ...(search.status ? [`--status ${search.status}`] : []),
        ...(agent ? [`--agent ${agent}`] : []),
        ...(opts.limit !== "25" ? [`--limit ${limit}`] : []),
        `--before ${page.olderBefore}`,
      ].join(" ");
      console.log(`\nOlder tasks: ${again}`);
    }
    return EXIT.ok;
  });
};

function printDetail(d: TaskDetailDto): void {
  const t = d.task;
  const out: string[] = [];
  const field = (name: string, value: string) => out.push(`  ${name.padEnd(10)} ${value}`);
  out.push(`Task ${t.id} (${t.agent})`);
  field(
    "status",
    `${t.status}${t.deadReason ? ` (${t.deadReason})` : ""}, ${t.attempts} attempt(s), version ${t.version}`,
  );
  field("created", `${shortTime(t.createdAt)} by ${t.createdBy}`);
  field("run at", shortTime(t.runAt));
  if (t.enqueueKey) field("key", t.enqueueKey);
  if (t.leaseOwner) field("lease", `${t.leaseOwner} until ${shortTime(t.leaseExpiresAt)}`);
  field("input", compactJson(t.input));
  if (t.result !== null) field("result", compactJson(t.result));
  if (t.lastError !== null) field("last error", t.lastErrorMessage ?? compactJson(t.lastError));
  if (t.archived) {
    const { source, unavailable } = t.archived;
    const from =
      source === "files"
        ? "; entries read from the archive files (verified)"
        : unavailable
          ? `; its entries cannot be read here: ${unavailable.message}`
          : "";
    field("archived", `${shortTime(t.archived.at)} in archive ${t.archived.archiveId}${from}`);
  }

  out.push("", `Steps (${d.steps.length}):`);
  if (d.steps.length > 0) {
    out.push(
      formatTable(
        ["SEQ", "KIND", "NAME", "STATUS", "ATTEMPT", "COMPLETED", "RESULT"],
        d.steps.map((s) => [
          String(s.seq),
          s.kind,
          s.name,
          s.status,
          String(s.attempt),
          shortTime(s.completedAt),
          compactJson(s.result).slice(0, 80),
        ]),
      ),
    );
  }
  out.push("", `Effects (${d.effects.length}):`);
  if (d.effects.length > 0) {
    out.push(
      formatTable(
        ["STEP", "TOOL", "STATE", "ATTEMPTS", "KEY", "ARGS"],
        d.effects.map((e) => [
          String(e.stepSeq),
          e.tool,
          e.state,
          String(e.attempts),
          e.key,
          compactJson(e.args).slice(0, 80),
        ]),
      ),
    );
  }
  if (d.approvals.length > 0) {
    out.push("", `Approvals (${d.approvals.length}):`);
    out.push(
      formatTable(
        ["ID", "TOOL", "STATUS", "REQUESTED", "DECIDED BY", "REASON"],
        d.approvals.map((a) => [
          String(a.id),
          a.tool,
          a.status,
          shortTime(a.requestedAt),
          a.decidedBy ?? "",
          a.reason ?? "",
        ]),
      ),
    );
  }
  const tl = d.timeline;
  out.push("", `Ledger (${tl.total} entries):`);
  const rows: string[][] = [];
  for (const e of tl.entries) {
    rows.push([String(e.seq), shortTime(e.at), e.kind, e.actor, e.key ?? ""]);
    if (tl.gap && e.seq === tl.gap.afterSeq) {
      rows.push(["…", `${tl.gap.count} entries left out`, "", "", ""]);
    }
  }
  if (rows.length > 0) out.push(formatTable(["SEQ", "AT", "KIND", "ACTOR", "KEY"], rows));
  if (tl.gap) {
    out.push(`The whole stream: agent-ledger export --format jsonl --stream task:${t.id}`);
  }
  console.log(out.join("\n"));
}

const show: Subcommand["run"] = async (argv) => {
  const { values: opts, args } = parseCommandLine(argv, { ...helpOption, ...jsonOption }, [
    "ID",
  ] as const);
  const id = parseTaskId(args.ID);
  return withAppDatabase("tasks", async (_pool, db) => {
    const detail = await getTaskDetail(db, operatorViewer(), id);
    if (!detail) return noSuchTask("tasks show", id);
    if (opts.json) printJson(detail);
    else printDetail(detail);
    return EXIT.ok;
  });
};

export const tasksCommand = commandGroup({
  name: "tasks",
  summary: "List tasks; show one task with its steps, effects and ledger timeline",
  notes: NOTES,
  subcommands: [
    {
      name: "list",
      synopsis: "[--status S] [--agent A] [--limit N] [--before CURSOR] [--json]",
      description: `Tasks newest first, at most N (default 25, up to 1000), optionally of one status and
one agent. When older tasks exist the last line (or "olderBefore" in JSON) gives the
--before cursor for the next page.`,
      run: list,
    },
    {
      name: "show",
      synopsis: "ID [--json]",
      description: `One task: its state and version, input and result, its journaled steps, its effects
with their keys, its approvals, and its ledger stream (a long stream shows its first
25 and last 75 entries; agent-ledger export --stream task:ID has all of it).`,
      run: show,
    },
  ],
});

// agent-ledger dead-letters: the triage view for a terminal: dead tasks by reason, then by
// error, with how long the oldest has waited (list-dead-letters, the dashboard's query).
import { z } from "zod";
import { DEAD_REASONS } from "../../lib/domain/task-states";
import {
  type DeadLettersDto,
  ERRORS_PER_REASON,
  listDeadLetters,
} from "../../lib/server/queries/list-dead-letters";
import { formatTable, operatorViewer, shortTime, withAppDatabase } from "./operator";
import {
  type Command,
  EXIT,
  helpOption,
  jsonOption,
  parseOption,
  parseOptions,
  printJson,
} from "./shared";

const reasonSchema = z.enum(DEAD_REASONS, {
  error: `must be one of: ${DEAD_REASONS.join(", ")}`,
});

/** "3d 4h", "2h 5m", "7m", "40s": how long the oldest task has waited. */
export function formatAge(seconds: number | null): string {
  if (seconds === null) return "";
  const s = Math.floor(seconds);
  const d = Math.floor(s / 86_400);
  const h = Math.floor((s % 86_400) / 3_600);
  const m = Math.floor((s % 3_600) / 60);
  if (d > 0) return `${d}d ${h}h`;
  if (h > 0) return `${h}h ${m}m`;
  if (m > 0) return `${m}m`;
  return `${s}s`;
}

function printDeadLetters(dto: DeadLettersDto, reason: string | undefined): void {
  const groups = reason ? dto.groups : dto.groups.filter((g) => g.count > 0);
  if (dto.total === 0) {
    console.log(
      reason ? `No dead tasks with reason ${reason}.` : "No dead tasks: nothing to triage.",
    );
    return;
  }
  console.log(`${dto.total} dead task(s) as of ${shortTime(dto.asOf)} UTC.\n`);
  const rows: string[][] = [];
  for (const g of groups) {
    rows.push([
      g.reason,
      String(g.count),
      shortTime(g.oldestAt),
      formatAge(g.oldestAgeSeconds),
      "",
    ]);
    for (const e of g.errors) {
      // One line per error in a table: a multi-line message is folded and cut.
      const message = e.message?.replace(/\s+/g, " ").trim().slice(0, 160);
      rows.push(["", String(e.count), shortTime(e.oldestAt), "", message || "(no error)"]);
    }
    if (g.otherErrors > 0) rows.push(["", String(g.otherErrors), "", "", "(other errors)"]);
  }
  console.log(formatTable(["REASON", "TASKS", "OLDEST", "WAITING", "ERROR"], rows));
  console.log(
    "\nThe tasks: agent-ledger tasks list --status dead; then tasks show, replay, approve or reject.",
  );
}

export const deadLettersCommand: Command = {
  name: "dead-letters",
  summary: "Dead tasks grouped by reason and error, oldest waiting first",
  usage: `agent-ledger dead-letters [--reason R] [--json]

Dead tasks grouped by reason, then by error message (the ${ERRORS_PER_REASON} most common per reason; the
rest are counted as other errors), with when the oldest died and how long it has waited.

Options:
  --reason R  only this reason: ${DEAD_REASONS.join(", ")}
  --json      print {"total", "groups": [{"reason", "count", "oldestAt", "oldestAgeSeconds",
              "newestAt", "errors": [{"message", "count", "oldestAt"}], "otherErrors"}], "asOf"}
  -h, --help

Exit codes: 0 ok (also when nothing is dead), 2 could not run (bad options, no database).`,
  run: async (argv) => {
    const opts = parseOptions(argv, { ...helpOption, ...jsonOption, reason: { type: "string" } });
    const reason =
      opts.reason === undefined ? undefined : parseOption(reasonSchema, opts.reason, "--reason");
    return withAppDatabase("dead-letters", async (_pool, db) => {
      const all = await listDeadLetters(db, operatorViewer());
      const groups = reason ? all.groups.filter((g) => g.reason === reason) : all.groups;
      const dto: DeadLettersDto = {
        ...all,
        groups,
        total: groups.reduce((sum, g) => sum + g.count, 0),
      };
      if (opts.json) printJson(dto);
      else printDeadLetters(dto, reason);
      return EXIT.ok;
    });
  },
};

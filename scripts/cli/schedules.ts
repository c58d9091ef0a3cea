// agent-ledger schedules: cron schedules from a shell (the same commands the dashboard's admins
// use; every change is a `system` ledger entry by "cli:<os user>").
import { MISSED_POLICIES } from "../../lib/domain/schedules";
import { createSchedule } from "../../lib/server/commands/create-schedule";
import { deleteSchedule } from "../../lib/server/commands/delete-schedule";
import { setSchedulePaused } from "../../lib/server/commands/set-schedule-paused";
import { readSchedules } from "../../lib/server/queries/list-schedules";
import { cliPrincipal, failure, listSubcommand, withAppDatabase } from "./operator";
import {
  commandGroup,
  EXIT,
  helpOption,
  jsonOption,
  parseOptions,
  printJson,
  type Subcommand,
  UsageError,
} from "./shared";

const NOTES = `A cron expression has 5 fields (minute hour day month weekday) or 6 with seconds
first ("* * * * * *" is every second), read in --timezone (an IANA name, default UTC).
--missed says what a tick does with occurrences missed while no worker ran: ${MISSED_POLICIES.join(", ")}
(default skip). Schedules the agents' code declares are listed with source "code": they can be
paused and resumed here, and removed only from the code.

Exit codes: 0 ok, 1 refused (no such schedule or agent, already paused, bad input), 2 could not
run or bad options.`;

type Sub = Subcommand["run"];

const refOptions = { agent: { type: "string" }, name: { type: "string" } } as const;

function required(opts: Record<string, unknown>, names: readonly string[]) {
  for (const name of names) {
    if (opts[name] === undefined) throw new UsageError(`--${name} is required`);
  }
}

const add: Sub = async (argv) => {
  const opts = parseOptions(argv, {
    ...helpOption,
    ...jsonOption,
    ...refOptions,
    cron: { type: "string" },
    timezone: { type: "string" },
    input: { type: "string" },
    missed: { type: "string" },
  });
  required(opts, ["agent", "name", "cron", "input"]);
  let input: unknown;
  try {
    input = JSON.parse(opts.input ?? "");
  } catch (err) {
    throw new UsageError(`--input is not JSON: ${(err as Error).message}`);
  }
  return withAppDatabase("schedules", async (pool) => {
    // The command parses the rest (cron, time zone, missed) and checks the input.
    const result = await createSchedule(pool, cliPrincipal(), {
      agent: opts.agent,
      name: opts.name,
      cron: opts.cron,
      timezone: opts.timezone,
      input,
      missed: opts.missed,
    });
    if (!result.ok) return failure("schedules add", result);
    if (opts.json) printJson(result.value);
    else
      console.log(
        `Schedule ${result.value.agent}/${result.value.name} added (${result.value.id}).`,
      );
    return EXIT.ok;
  });
};

const list = listSubcommand({
  command: "schedules",
  read: readSchedules,
  none: "No schedules yet: declare them in an agent's code, or agent-ledger schedules add …",
  header: ["AGENT", "NAME", "CRON", "TIME ZONE", "MISSED", "SOURCE", "STATE", "NEXT", "LAST TASK"],
  cells: (s) => [
    s.agent,
    s.name,
    s.cron,
    s.timezone,
    s.missed,
    s.source,
    s.paused ? "paused" : "running",
    s.nextOccurrenceAt ?? "-",
    s.lastTask ? `${s.lastTask.id} (${s.lastTask.status})` : "-",
  ],
});

function pauseCommand(paused: boolean): Sub {
  const verb = paused ? "pause" : "resume";
  return async (argv) => {
    const opts = parseOptions(argv, { ...helpOption, ...jsonOption, ...refOptions });
    required(opts, ["agent", "name"]);
    return withAppDatabase("schedules", async (pool) => {
      const result = await setSchedulePaused(pool, cliPrincipal(), {
        agent: opts.agent ?? "",
        name: opts.name ?? "",
        paused,
      });
      if (!result.ok) return failure(`schedules ${verb}`, result);
      if (opts.json) printJson(result.value);
      else console.log(`Schedule ${opts.agent}/${opts.name} is ${paused ? "paused" : "running"}.`);
      return EXIT.ok;
    });
  };
}

const remove: Sub = async (argv) => {
  const opts = parseOptions(argv, { ...helpOption, ...jsonOption, ...refOptions });
  required(opts, ["agent", "name"]);
  return withAppDatabase("schedules", async (pool) => {
    const result = await deleteSchedule(pool, cliPrincipal(), {
      agent: opts.agent ?? "",
      name: opts.name ?? "",
    });
    if (!result.ok) return failure("schedules remove", result);
    if (opts.json) printJson(result.value);
    else console.log(`Schedule ${opts.agent}/${opts.name} is removed.`);
    return EXIT.ok;
  });
};

export const schedulesCommand = commandGroup({
  name: "schedules",
  summary: "Cron schedules per agent (list, add, pause, resume, remove)",
  notes: NOTES,
  subcommands: [
    {
      name: "list",
      synopsis: "[--json]",
      description: "Every schedule with its cron, time zone, state, next occurrence and last task.",
      run: list,
    },
    {
      name: "add",
      synopsis:
        "--agent A --name N --cron EXPR --input JSON [--timezone TZ] [--missed skip|run-once|run-each] [--json]",
      description:
        "Adds a schedule for a published agent; the input is checked against its schema.",
      run: add,
    },
    {
      name: "pause",
      synopsis: "--agent A --name N [--json]",
      description:
        "Stops enqueueing its occurrences (code schedules too; the pause outlives deploys).",
      run: pauseCommand(true),
    },
    {
      name: "resume",
      synopsis: "--agent A --name N [--json]",
      description:
        "Enqueues again; under skip the paused stretch is not backfilled, run-once and run-each catch up.",
      run: pauseCommand(false),
    },
    {
      name: "remove",
      synopsis: "--agent A --name N [--json]",
      description:
        "Deletes a schedule added here or in the dashboard (code schedules are refused).",
      run: remove,
    },
  ],
});

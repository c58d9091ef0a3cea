// agent-ledger replay: re-run a dead or parked task from step N with the same effect keys. The
// preview (--dry-run) is the one the dashboard shows and the replay records in the ledger.

import type { ReviewEffect, ReviewPreview } from "../../lib/domain/replay-plan";
import { refusalOf } from "../../lib/domain/task-actions";
import { replayTask } from "../../lib/server/commands/replay-task";
import type { SecondReviewer } from "../../lib/server/commands/two-person";
import { previewReview, readReviewState } from "../../lib/server/queries/get-review-state";
import { cliPrincipal, failure, formatTable, operatorViewer } from "./operator";
import { EXIT, parseOption, printJson, UsageError, wholeNumber } from "./shared";
import { taskCommand } from "./task-command";

const USAGE = `agent-ledger replay ID --from-step N [--dry-run] [--version V] [--json]

Replays a dead or awaiting-approval task from step N: steps before N keep their journaled
results, steps from N run again, and an effect whose key already succeeded returns its stored
result instead of acting again. --dry-run prints what the replay would do and changes nothing:
the steps that run again, each effect it reaches (deduplicated, or acts), and whether the
two-person rule applies.

Two-person rule: when the replay can reach a tool that moves money, the first run records a
request and changes nothing else; a second, different reviewer confirms it (the same command
run by another person, or the dashboard). The actor is "cli:<os user>".

Options:
  --from-step N  the first step to run again (1 to the last journaled step + 1)
  --dry-run      print the preview only
  --version V    act only if the task is still at version V (as shown by tasks show);
                 default: the version read just before replaying
  --json         print the result (with its "preview") as JSON
  -h, --help

Exit codes: 0 replayed, request recorded, or previewed; 1 refused (no such task, a status that
cannot be replayed, the task changed since version V, the same reviewer twice); 2 could not
run (bad options, a step out of range, no database).`;

const OUTCOME: Record<ReviewEffect["outcome"], string> = {
  dedupe: "deduplicated: returns its stored result",
  act: "ACTS: its earlier attempt failed",
  outcome_unknown: "MAY ACT: its outcome is unknown and it may be sent again",
  in_flight: "waits: another worker holds it",
};

function describeEffect(e: ReviewEffect): string {
  const what =
    e.outcome === "dedupe" && e.mayChange
      ? "MAY ACT: deduplicated only if a step re-run before it asks for the same arguments"
      : OUTCOME[e.outcome];
  return `${what}${e.money ? " [money]" : ""}`;
}

export function formatPreview(p: ReviewPreview & { lastStep?: number }): string {
  const out: string[] = [];
  const journal = p.lastStep === undefined ? "" : ` (${p.lastStep} journaled)`;
  out.push(`From step ${p.fromStep}${journal}:`);
  out.push(
    p.rerun.length === 0
      ? "  No journaled step runs again; the task continues after its last step."
      : formatTable(
          ["STEP", "KIND", "NAME"],
          p.rerun.map((s) => [String(s.seq), s.kind, s.name]),
        )
          .split("\n")
          .map((l) => `  ${l}`)
          .join("\n"),
  );
  out.push("", `Effects the replay reaches (${p.effects.length}):`);
  if (p.effects.length === 0) out.push("  none journaled; new effects act when first reached");
  else
    out.push(
      formatTable(
        ["STEP", "TOOL", "KEY", "WHAT HAPPENS"],
        p.effects.map((e) => [String(e.step), e.tool, e.key.slice(0, 16), describeEffect(e)]),
      )
        .split("\n")
        .map((l) => `  ${l}`)
        .join("\n"),
    );
  if (!p.catalogKnown) {
    out.push("", "No worker has published this agent: its tools count as not moving money.");
  }
  out.push(
    "",
    p.twoPerson
      ? `Two-person rule: a second, different reviewer must confirm, because\n${p.reasons.map((r) => `  - ${r}`).join("\n")}`
      : "One reviewer is enough: nothing that moves money can act.",
  );
  return out.join("\n");
}

function describeWaiting(w: SecondReviewer, what: string): string {
  return `${w.requestedBy} asked for ${what} at ${w.requestedAt}${w.requestId === null ? "" : ` (request ${w.requestId})`}. Nothing runs until a second, different reviewer confirms it: the same command run by another person, or the dashboard.`;
}

export const replayCommand = taskCommand({
  name: "replay",
  summary: "Replay a dead or parked task from step N (--dry-run: preview only)",
  usage: USAGE,
  options: { "from-step": { type: "string" }, "dry-run": { type: "boolean" } },
  input: (opts) => {
    if (opts["from-step"] === undefined) throw new UsageError("--from-step: is required");
    return {
      fromStep: parseOption(wholeNumber(1), opts["from-step"], "--from-step"),
      dryRun: opts["dry-run"] === true,
    };
  },
  act: async (pool, task, { fromStep, dryRun }, json) => {
    const { id, actOn: version } = task;
    // The checks the replay command makes under its lock, made here on a plain read.
    if (dryRun) {
      const refused = refusalOf("replay", task.status, cliPrincipal());
      if (refused) return failure("replay", refused);
      if (version !== task.version) {
        console.error(
          `agent-ledger replay: the task changed: it is ${task.status} at version ${task.version}, not ${version}`,
        );
        return EXIT.problem;
      }
      const preview = await previewReview(pool, operatorViewer(), id, fromStep);
      if (!preview.ok) return failure("replay", preview);
      const state = await readReviewState(pool, operatorViewer(), id);
      const pending = state?.pending ?? null;
      if (json) {
        printJson({
          id,
          status: task.status,
          version,
          dryRun: true,
          pending,
          preview: preview.value,
        });
        return EXIT.ok;
      }
      console.log(`Dry run: replaying task ${id} (${task.status}, version ${version}).\n`);
      console.log(formatPreview(preview.value));
      if (pending) {
        console.log(
          `\nPending: ${pending.requestedBy} asked for ${pending.action === "replay" ? `a replay from step ${pending.fromStep}` : "resuming the task"} at ${pending.requestedAt}; a different reviewer confirms it by running the same action.`,
        );
      }
      console.log(
        `\nNothing was changed. To replay: agent-ledger replay ${id} --from-step ${fromStep} --version ${version}`,
      );
      return EXIT.ok;
    }

    const result = await replayTask(pool, cliPrincipal(), { taskId: id, version, fromStep });
    if (!result.ok) return failure("replay", result);
    const r = result.value;
    if (json) {
      printJson(r);
      return EXIT.ok;
    }
    if (r.waitingFor) {
      console.log(describeWaiting(r.waitingFor, `a replay of task ${id} from step ${fromStep}`));
    } else {
      console.log(
        `Replaying task ${id} from step ${fromStep}: ${r.status} at version ${r.version}.`,
      );
    }
    console.log(`\n${formatPreview(r.preview)}`);
    return EXIT.ok;
  },
});

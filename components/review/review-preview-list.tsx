// What a replay or resume would do to every effect it reaches, in the words a reviewer confirms:
// "deduplicated — returns the stored result" or "will act", with the ones that move money
// marked, and why a second reviewer is needed when one is.
import type { ReviewEffect, ReviewPreview } from "../../lib/domain/replay-plan";
import { ShortHash } from "../tasks/short-hash";
import { Badge } from "../ui/badge";

type Line = { badge: string; hint: string; tone: "good" | "warn" | "bad" | "info" };

function effectLine(e: ReviewEffect): Line {
  if (e.outcome === "dedupe" && !e.mayChange) {
    return {
      badge: "Deduplicated",
      hint: "Returns the stored result; the provider is not called.",
      tone: "good",
    };
  }
  if (e.outcome === "dedupe") {
    return {
      badge: "Deduplicated, unless it changes",
      hint: "Returns the stored result if the re-run asks for the same thing; a step before it runs again and may change that, and a new intent acts.",
      tone: "warn",
    };
  }
  if (e.outcome === "act") {
    return {
      badge: "Will act",
      hint: "The last try did not act, so the same key acts now.",
      tone: "warn",
    };
  }
  if (e.outcome === "outcome_unknown") {
    return {
      badge: "Outcome unknown",
      hint: "Reconciled with the provider, resent where it honours the key, otherwise back to a person.",
      tone: "bad",
    };
  }
  return {
    badge: "In flight",
    hint: "Another worker holds it; the run waits for its result.",
    tone: "info",
  };
}

export function ReviewPreviewList({ preview }: { preview: ReviewPreview }) {
  const verb = preview.action === "replay" ? `A replay from step ${preview.fromStep}` : "Resuming";
  return (
    <div className="space-y-3 text-sm" data-testid="review-preview">
      <p className="text-slate-700">
        {verb} runs{" "}
        {preview.rerun.length === 0
          ? "no journaled step"
          : `${preview.rerun.length} journaled step${preview.rerun.length === 1 ? "" : "s"}`}{" "}
        again, then continues past the journal with the same keys.
      </p>
      {preview.loop ? (
        <p className="text-slate-700" data-testid="loop-replay-note">
          {preview.loop.note}
        </p>
      ) : null}
      {preview.effects.length === 0 ? (
        <p className="rounded-md border border-dashed border-slate-300 bg-slate-50 px-3 py-2 text-slate-700">
          No effect is keyed from here on: any effect the run reaches acts for the first time.
        </p>
      ) : (
        <ul
          className="divide-y divide-slate-100 rounded-md border border-slate-200"
          aria-label="Effects it reaches"
        >
          {preview.effects.map((e) => {
            const line = effectLine(e);
            return (
              <li
                key={e.key}
                className="flex flex-wrap items-center gap-x-3 gap-y-1 px-3 py-2"
                data-replay-key={e.key}
                data-outcome={e.outcome}
                data-money={e.money}
              >
                <span className="font-mono text-xs text-slate-600">step {e.step}</span>
                <span className="font-mono">{e.tool}</span>
                <ShortHash value={e.key} />
                <Badge tone={line.tone}>{line.badge}</Badge>
                {e.money ? <Badge tone="bad">Moves money</Badge> : null}
                <span className="basis-full text-xs text-slate-700">{line.hint}</span>
              </li>
            );
          })}
        </ul>
      )}
      {preview.catalogKnown ? null : (
        <p className="text-xs text-slate-700">
          No worker has published this agent's tools, so none of them is treated as moving money.
        </p>
      )}
      {preview.twoPerson ? (
        <div
          className="rounded-md bg-amber-50 px-3 py-2 text-amber-950 ring-1 ring-amber-300 ring-inset"
          data-testid="two-person-reasons"
        >
          <p className="font-medium">Needs two different reviewers:</p>
          <ul className="list-disc pl-5">
            {preview.reasons.map((r) => (
              <li key={r}>{r}</li>
            ))}
          </ul>
        </div>
      ) : null}
    </div>
  );
}

// One effect's story, top to bottom in the order a reader asks: what was done, who decided it,
// which task it served, how the attempts went, which people stepped in, whether a repeat was
// deduplicated, and the ledger entries it is all read from.
import type { WhyEffect } from "../../lib/server/queries/why";
import { EFFECT_STATE_LABEL, EFFECT_STATE_TONE } from "../tasks/labels";
import { Badge } from "../ui/badge";
import { Timestamp } from "../ui/timestamp";
import { AttemptsChapter } from "./attempts";
import { DecisionChapter } from "./decision";
import { PeopleChapter } from "./people";
import { HistoryChapter, RepeatsChapter } from "./repeats-history";
import { TaskOrigin } from "./task-origin";
import { WhatWasDone } from "./what-was-done";

export function effectAnchor(key: string): string {
  return `why-${key}`;
}

export function EffectStory({ why }: { why: WhyEffect }) {
  const { effect } = why;
  const idBase = effectAnchor(effect.key);
  const headingId = `${idBase}-heading`;
  return (
    <article
      id={idBase}
      aria-labelledby={headingId}
      data-effect-key={effect.key}
      className="min-w-0 scroll-mt-4 rounded-lg border border-slate-200 bg-white shadow-sm target:ring-2 target:ring-sky-400"
    >
      <header className="flex flex-wrap items-center justify-between gap-2 bg-slate-50/60 px-4 py-3 sm:px-5">
        <div className="flex min-w-0 flex-wrap items-center gap-2">
          <h3 id={headingId} className="text-base font-semibold text-slate-900">
            <span className="font-mono">{effect.tool}</span>{" "}
            <span className="font-normal text-slate-600">
              key <span className="font-mono text-sm">{effect.key.slice(0, 12)}…</span>
            </span>
          </h3>
          <Badge tone={EFFECT_STATE_TONE[effect.state]}>{EFFECT_STATE_LABEL[effect.state]}</Badge>
          {why.deduplicated ? <Badge tone="good">Deduplicated</Badge> : null}
        </div>
        <p className="text-xs text-slate-600">
          Started <Timestamp iso={effect.createdAt} />
        </p>
      </header>
      <WhatWasDone why={why} idBase={idBase} />
      <DecisionChapter why={why} idBase={idBase} />
      <TaskOrigin why={why} idBase={idBase} />
      <AttemptsChapter why={why} idBase={idBase} />
      <PeopleChapter why={why} idBase={idBase} />
      <RepeatsChapter why={why} idBase={idBase} />
      <HistoryChapter why={why} idBase={idBase} />
    </article>
  );
}

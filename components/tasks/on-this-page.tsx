// Jump links to the sections of the task page, with how many rows each holds.
import type { TaskDetailDto } from "../../lib/server/queries/get-task-detail";

export function OnThisPage({ detail, timeline }: { detail: TaskDetailDto; timeline: boolean }) {
  const sections = [
    { id: "input", label: "Input" },
    { id: "outcome", label: "Outcome" },
    ...(detail.family.parent !== null || detail.family.childCount > 0
      ? [
          {
            id: "family",
            label:
              detail.family.childCount > 0
                ? `Children (${detail.family.childCount})`
                : "Parent task",
          },
        ]
      : []),
    ...(detail.attempts.length > 0
      ? [{ id: "attempts", label: `Attempts (${detail.attempts.length})` }]
      : []),
    ...(timeline ? [{ id: "timeline", label: "Timeline" }] : []),
    { id: "steps", label: `Steps (${detail.steps.length})` },
    { id: "effects", label: `Effects (${detail.effects.length})` },
    { id: "approvals", label: `Approvals (${detail.approvals.length})` },
    ...(detail.replay ? [{ id: "replay", label: "Replay preview" }] : []),
    { id: "ledger", label: `Ledger (${detail.timeline.total})` },
  ];
  return (
    <nav aria-label="On this page" className="text-sm">
      <ul className="flex flex-wrap gap-2">
        {sections.map((s) => (
          <li key={s.id}>
            <a
              href={`#${s.id}`}
              className="inline-block rounded-full border border-slate-300 bg-white px-3 py-1 font-medium text-slate-700 shadow-xs hover:border-slate-400 hover:bg-slate-50"
            >
              {s.label}
            </a>
          </li>
        ))}
      </ul>
    </nav>
  );
}

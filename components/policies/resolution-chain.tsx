// How a task's retry policy is resolved: the first level that sets a field wins. The same order
// as lib/domain/retry-policy's POLICY_LEVELS, which the worker and this screen resolve through.
const LEVELS = [
  {
    name: "Task override",
    detail: "Set when the task is enqueued; the task page shows it.",
  },
  {
    name: "Agent row",
    detail: "The agent:<name> override below, set by an admin here.",
  },
  {
    name: "Agent code",
    detail: "The defaults the agent declares in its code, as its workers publish them at start.",
  },
  { name: "Global", detail: "The global row below: every field is set." },
  { name: "Built-in", detail: "Agent Ledger's own defaults, used before any global row exists." },
];

export function ResolutionChain() {
  return (
    <ol aria-label="Resolution order, first match wins" className="grid gap-3 md:grid-cols-5">
      {LEVELS.map((level, i) => (
        <li
          key={level.name}
          className="relative rounded-md border border-slate-200 bg-slate-50 px-3 py-2.5"
        >
          <span className="flex items-center gap-2">
            <span
              aria-hidden="true"
              className="grid size-6 shrink-0 place-items-center rounded-full bg-slate-900 text-xs font-semibold text-white"
            >
              {i + 1}
            </span>
            <span className="font-medium text-slate-900">{level.name}</span>
          </span>
          <span className="mt-1 block text-xs text-slate-600">{level.detail}</span>
          {i < LEVELS.length - 1 ? (
            <span
              aria-hidden="true"
              className="absolute top-1/2 -right-2.5 hidden -translate-y-1/2 text-slate-400 md:block"
            >
              ▸
            </span>
          ) : null}
        </li>
      ))}
    </ol>
  );
}

// The Input section of the task page: the input as enqueued and, when a reviewer fixed it, each
// correction after it (field by field before → after, who proposed it and who confirmed it),
// then the input the task runs with now. Values are the ledger entries' own, shown as text.
import type { JsonValue } from "../../lib/domain/json";
import type { TaskDetailDto } from "../../lib/server/queries/get-task-detail";
import { Timestamp } from "../ui/timestamp";
import { DiffTable } from "./diff-table";
import { JsonDetails, JsonView } from "./json-view";

export function inputDescription(history: TaskDetailDto["inputHistory"]): string {
  const n = history.corrections.length;
  return n === 0
    ? "As enqueued. The agent checks it against its schema."
    : `As enqueued, then ${n === 1 ? "one correction" : `${n} corrections`} before → after, and the input the task runs with now.`;
}

export function InputHistory({
  history,
  current,
  payloadsHidden,
}: {
  history: TaskDetailDto["inputHistory"];
  /** The input the task holds now. */
  current: JsonValue;
  payloadsHidden: boolean;
}) {
  if (history.corrections.length === 0) {
    return <JsonView value={current} label="Input of the task" tall />;
  }
  return (
    <ol aria-label="The input as enqueued and each correction after it" className="space-y-4">
      <li data-testid="input-enqueued">
        <h3 className="text-sm font-medium text-slate-900">As enqueued</h3>
        <div className="mt-1">
          <JsonDetails value={history.enqueued} label="The input as enqueued" summary="Input" />
        </div>
      </li>
      {history.corrections.map((c, i) => (
        <li key={c.seq} data-testid="input-correction" data-seq={c.seq}>
          <h3 className="text-sm font-medium text-slate-900">
            Correction {i + 1}
            <span className="ml-2 font-normal text-slate-600">
              ledger entry #{c.seq}, <Timestamp iso={c.at} />
            </span>
          </h3>
          <p className="mt-0.5 text-sm text-slate-700" data-testid="correction-people">
            {c.confirmedBy === null ? (
              <>
                By <span className="font-medium break-all">{c.proposedBy}</span>
              </>
            ) : (
              <>
                Proposed by <span className="font-medium break-all">{c.proposedBy}</span>, confirmed
                by <span className="font-medium break-all">{c.confirmedBy}</span>
              </>
            )}
            {c.fromStep === null ? "" : `; replayed from step ${c.fromStep}`}.
          </p>
          {c.note ? (
            <p className="mt-0.5 text-sm break-words text-slate-700">Why: {c.note}</p>
          ) : null}
          <div className="mt-2">
            {payloadsHidden ? (
              <p className="text-sm text-slate-600">
                The values are payloads: your access does not show them.
              </p>
            ) : c.rows.length === 0 ? (
              <p className="text-sm text-slate-600">No field changed.</p>
            ) : (
              <DiffTable
                rows={c.rows}
                caption={`Correction ${i + 1}: the input before and after`}
                beforeLabel="Before"
                afterLabel="After"
                testId="correction-diff"
              />
            )}
          </div>
        </li>
      ))}
      <li data-testid="input-now">
        <h3 className="text-sm font-medium text-slate-900">Now</h3>
        <div className="mt-1">
          <JsonView value={current} label="Input of the task now" tall />
        </div>
      </li>
    </ol>
  );
}

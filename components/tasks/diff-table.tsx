// Two JSON values side by side, leaf by leaf (lib/domain/json-diff rows): the payload approved
// or performed first beside the one a later run asked for, or an input before and after a
// correction. Values are canonical JSON shown as text; React escapes them.
import type { DiffRow } from "../../lib/domain/json-diff";

const CHANGE_LABEL: Record<DiffRow["change"], string> = {
  same: "same",
  changed: "changed",
  added: "added",
  removed: "removed",
};

const CHANGE_CLASS: Record<DiffRow["change"], string> = {
  same: "text-slate-600",
  changed: "bg-amber-50 text-amber-950",
  added: "bg-emerald-50 text-emerald-950",
  removed: "bg-rose-50 text-rose-950",
};

export function DiffTable({
  rows,
  caption,
  beforeLabel,
  afterLabel,
  testId,
}: {
  rows: readonly DiffRow[];
  caption: string;
  beforeLabel: string;
  afterLabel: string;
  testId?: string;
}) {
  return (
    <div className="overflow-x-auto">
      <table className="w-full table-fixed border-collapse text-left text-sm" data-testid={testId}>
        <caption className="sr-only">{caption}</caption>
        <thead>
          <tr className="border-b border-slate-200 text-xs text-slate-600">
            <th scope="col" className="w-1/4 py-1 pr-2 font-medium">
              Field
            </th>
            <th scope="col" className="w-[37.5%] py-1 pr-2 font-medium">
              {beforeLabel}
            </th>
            <th scope="col" className="w-[37.5%] py-1 font-medium">
              {afterLabel}
            </th>
          </tr>
        </thead>
        <tbody>
          {rows.map((r) => (
            <tr
              key={r.path}
              className={`border-b border-slate-100 align-top ${CHANGE_CLASS[r.change]}`}
            >
              <th scope="row" className="py-1 pr-2 font-mono text-xs font-normal break-all">
                {r.path === "" ? "(whole value)" : r.path}
                {r.change === "same" ? null : (
                  <span className="ml-1 font-sans text-xs font-medium">
                    ({CHANGE_LABEL[r.change]})
                  </span>
                )}
              </th>
              <td className="py-1 pr-2 font-mono text-xs break-all whitespace-pre-wrap">
                {r.before ?? <span className="font-sans text-slate-600">absent</span>}
              </td>
              <td className="py-1 font-mono text-xs break-all whitespace-pre-wrap">
                {r.after ?? <span className="font-sans text-slate-600">absent</span>}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

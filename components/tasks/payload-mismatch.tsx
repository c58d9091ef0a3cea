// A payload mismatch: the same intent (so the same key) asked for with other arguments than the
// ones performed or approved first. Both payloads side by side, the differing fields marked.
import type { TaskDetailDto } from "../../lib/server/queries/get-task-detail";
import { Timestamp } from "../ui/timestamp";
import { DiffTable } from "./diff-table";
import { JsonView } from "./json-view";
import { ShortHash } from "./short-hash";

export function PayloadMismatches({
  mismatches,
}: {
  mismatches: TaskDetailDto["payloadMismatches"];
}) {
  return (
    <ul className="space-y-6">
      {mismatches.map((m) => (
        <li key={`${m.key}-${m.at}`} className="space-y-2" data-testid="payload-mismatch">
          <p className="text-sm text-slate-700">
            Key <ShortHash value={m.key} /> at <Timestamp iso={m.at} />: first fingerprint{" "}
            <ShortHash value={m.first.fingerprint} />, now{" "}
            <ShortHash value={m.second.fingerprint} />. The tool's policy:{" "}
            {m.policy === "return-first" ? "return the first result" : "dead-letter"}.
          </p>
          {m.rows.length > 0 ? (
            <DiffTable
              rows={m.rows}
              caption="The first payload beside the one asked for now"
              beforeLabel="Approved / performed first"
              afterLabel="Asked for now"
              testId="payload-diff"
            />
          ) : (
            <div className="grid gap-3 md:grid-cols-2">
              <JsonView value={m.first.args} label="The first payload" />
              <JsonView value={m.second.args} label="The payload asked for now" />
            </div>
          )}
        </li>
      ))}
    </ul>
  );
}

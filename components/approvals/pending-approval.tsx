// One gated effect waiting for a person: the task it belongs to, how long it has waited, and
// the exact arguments (with their fingerprint) that an approval would be bound to.
import type { PendingApprovalDto } from "../../lib/server/queries/list-approvals";
import { JsonView } from "../tasks/json-view";
import { FullHash } from "../tasks/short-hash";
import { TaskLink } from "../tasks/task-link";
import { Duration } from "../ui/duration";
import { Timestamp } from "../ui/timestamp";

/** Past this, a request is overdue and is drawn to attention. */
const LONG_WAIT_SECONDS = 24 * 60 * 60;

export function PendingApproval({ approval }: { approval: PendingApprovalDto }) {
  const long = approval.waitedSeconds >= LONG_WAIT_SECONDS;
  return (
    <article
      aria-labelledby={`approval-${approval.id}-title`}
      data-approval-id={approval.id}
      className="rounded-lg border border-slate-200 bg-white shadow-sm"
    >
      <header className="flex flex-wrap items-start justify-between gap-3 border-b border-slate-100 px-4 py-3 sm:px-5">
        <div className="min-w-0">
          <h3
            id={`approval-${approval.id}-title`}
            className="text-base font-semibold text-slate-900"
          >
            <span className="font-mono">{approval.tool}</span>{" "}
            <span className="font-normal text-slate-600">for</span> {approval.agent}
          </h3>
          <p className="mt-0.5 text-sm text-slate-600">
            Task <TaskLink id={approval.taskId} /> · requested{" "}
            <Timestamp iso={approval.requestedAt} />
          </p>
        </div>
        <p
          className={`rounded-md px-2.5 py-1 text-sm font-medium ${long ? "bg-rose-50 text-rose-900 ring-1 ring-rose-300 ring-inset" : "bg-amber-50 text-amber-900 ring-1 ring-amber-300 ring-inset"}`}
        >
          Waiting <Duration seconds={approval.waitedSeconds} />
        </p>
      </header>
      <div className="grid gap-4 px-4 py-4 sm:px-5 lg:grid-cols-[minmax(0,3fr)_minmax(0,2fr)]">
        <div className="min-w-0">
          <h4 className="mb-1 text-xs font-medium tracking-wide text-slate-600 uppercase">
            Arguments to approve
          </h4>
          <JsonView value={approval.args} label={`Arguments of approval ${approval.id}`} />
        </div>
        <dl className="min-w-0 space-y-3 text-sm">
          <div>
            <dt className="text-xs font-medium tracking-wide text-slate-600 uppercase">
              Payload fingerprint
            </dt>
            <dd>
              <FullHash value={approval.fingerprint} />
            </dd>
          </div>
          <div>
            <dt className="text-xs font-medium tracking-wide text-slate-600 uppercase">
              Idempotency key
            </dt>
            <dd>
              <FullHash value={approval.effectKey} />
            </dd>
          </div>
        </dl>
      </div>
    </article>
  );
}

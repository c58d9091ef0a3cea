// "Did a person step in?": approvals asked for this effect and every review of the task that
// concerns it (approved, resumed, replayed, rejected, resolved, cancelled), with who and when.
import type { WhyEffect } from "../../lib/server/queries/why";
import { bulkHref } from "../tasks/bulk-href";
import { APPROVAL_STATUS_LABEL, APPROVAL_STATUS_TONE } from "../tasks/labels";
import { ShortHash } from "../tasks/short-hash";
import { Badge } from "../ui/badge";
import { Timestamp } from "../ui/timestamp";
import { REVIEW_ACTION_LABEL, REVIEW_ACTION_TONE } from "./labels";
import { Chapter } from "./story-kit";

const actorClass = "font-mono text-xs break-all";

function Approvals({ why, name }: { why: WhyEffect; name: string }) {
  if (why.approvals.length === 0) return null;
  return (
    <ol aria-label={`Approvals asked for this effect (${name})`} className="space-y-2">
      {why.approvals.map((a) => (
        <li
          key={a.id}
          data-approval-status={a.status}
          className="min-w-0 rounded-md border border-slate-200 px-3 py-2"
        >
          <div className="flex flex-wrap items-center gap-x-3 gap-y-1">
            <span className="font-medium">Approval request</span>
            <Badge tone={APPROVAL_STATUS_TONE[a.status]}>{APPROVAL_STATUS_LABEL[a.status]}</Badge>
            {a.money ? <Badge tone="info">Money: two reviewers</Badge> : null}
            <span className="text-xs text-slate-600">
              asked <Timestamp iso={a.requestedAt} />
            </span>
          </div>
          <ul className="mt-1 space-y-0.5">
            {a.firstApprovedBy ? (
              <li>
                First yes by <span className={actorClass}>{a.firstApprovedBy}</span>
                {a.firstApprovedAt ? (
                  <>
                    {" "}
                    at <Timestamp iso={a.firstApprovedAt} />
                  </>
                ) : null}
              </li>
            ) : null}
            {a.decidedBy ? (
              <li>
                {a.status === "rejected" ? "Rejected" : "Decided"} by{" "}
                <span className={actorClass}>{a.decidedBy}</span>
                {a.decidedAt ? (
                  <>
                    {" "}
                    at <Timestamp iso={a.decidedAt} />
                  </>
                ) : null}
                {a.reason ? <span className="break-words"> — “{a.reason}”</span> : null}
              </li>
            ) : null}
            {a.status === "approved" ? (
              <li>
                {a.usedAt ? (
                  <>
                    Used once, at <Timestamp iso={a.usedAt} />
                  </>
                ) : (
                  "Not used yet"
                )}
              </li>
            ) : null}
            <li className="text-xs text-slate-600">
              Bound to fingerprint <ShortHash value={a.fingerprint} />
            </li>
          </ul>
        </li>
      ))}
    </ol>
  );
}

function Reviews({ why, name }: { why: WhyEffect; name: string }) {
  if (why.reviews.length === 0) return null;
  return (
    <ol
      aria-label={`Reviews of this effect and its task (${name}), oldest first`}
      className="space-y-2"
    >
      {why.reviews.map((r) => (
        <li
          key={r.ledgerEntryId}
          data-review-action={r.action}
          className="min-w-0 rounded-md border border-sky-200 bg-sky-50/40 px-3 py-2"
        >
          <div className="flex flex-wrap items-center gap-x-3 gap-y-1">
            <Badge tone={REVIEW_ACTION_TONE[r.action]}>{REVIEW_ACTION_LABEL[r.action]}</Badge>
            <span className={actorClass}>{r.actor}</span>
            <span className="text-xs text-slate-600">
              <Timestamp iso={r.at} />
            </span>
          </div>
          {r.fromStep !== null ? <p className="mt-1">From step {r.fromStep}.</p> : null}
          {r.requestedBy ? (
            <p className="mt-1">
              Asked first by <span className={actorClass}>{r.requestedBy}</span>; confirmed by{" "}
              <span className={actorClass}>{r.actor}</span>.
            </p>
          ) : null}
          {r.bulk ? (
            <p className="mt-1" data-testid="review-bulk">
              Part of{" "}
              <a
                href={bulkHref(r.bulk.id)}
                className="font-medium text-sky-800 underline-offset-2 hover:underline"
              >
                bulk action {r.bulk.id.slice(0, 8)}
              </a>{" "}
              by <span className={actorClass}>{r.bulk.requestedBy}</span>
              {r.bulk.confirmedBy ? (
                <>
                  , confirmed by <span className={actorClass}>{r.bulk.confirmedBy}</span>
                </>
              ) : null}
              .
            </p>
          ) : null}
          {r.effectKeys.length === 0 ? (
            <p className="mt-1 text-xs text-slate-600">Concerns the whole task.</p>
          ) : null}
          {r.note ? <p className="mt-1 break-words">“{r.note}”</p> : null}
        </li>
      ))}
    </ol>
  );
}

export function PeopleChapter({ why, idBase }: { why: WhyEffect; idBase: string }) {
  const name = `${why.effect.tool} ${why.effect.key.slice(0, 12)}`;
  const nobody = why.approvals.length === 0 && why.reviews.length === 0;
  return (
    <Chapter id={`${idBase}-people`} title="People">
      {nobody ? (
        <p>
          No person approved, replayed, resumed, rejected or resolved this: the machine acted on its
          own.
        </p>
      ) : (
        <>
          <Approvals why={why} name={name} />
          <Reviews why={why} name={name} />
        </>
      )}
    </Chapter>
  );
}

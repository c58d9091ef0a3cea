// "Did it go wrong on the way?": every attempt of the task with how it ended and what followed,
// then this effect's own failures (refused, unknown outcome, payload mismatch, reconcile).
import type { WhyEffect } from "../../lib/server/queries/why";
import { JsonDetails } from "../tasks/json-view";
import { Badge } from "../ui/badge";
import { Timestamp } from "../ui/timestamp";
import {
  ATTEMPT_OUTCOME_LABEL,
  ATTEMPT_OUTCOME_TONE,
  FAILURE_KIND_LABEL,
  PERFORMED_TEXT,
} from "./labels";
import { Chapter, plural } from "./story-kit";

type Attempt = WhyEffect["attempts"][number];

function FollowedBy({ attempt }: { attempt: Attempt }) {
  if (attempt.followedBy === "retry") {
    return (
      <span>
        Retry scheduled
        {attempt.retryAt ? (
          <>
            {" "}
            for <Timestamp iso={attempt.retryAt} />
          </>
        ) : null}
        .
      </span>
    );
  }
  if (attempt.followedBy === "dead") {
    return (
      <span>
        Dead-lettered{attempt.deadReason ? ` (${attempt.deadReason.replaceAll("_", " ")})` : ""}.
      </span>
    );
  }
  return null;
}

function AttemptList({ why, name }: { why: WhyEffect; name: string }) {
  if (why.attempts.length === 0) {
    return <p className="text-slate-600">No attempt recorded: the task has not run yet.</p>;
  }
  return (
    <ol aria-label={`Attempts of the task (${name}), oldest first`} className="space-y-2">
      {why.attempts.map((a) => (
        <li
          // A resume or replay starts the counter again, so the number alone repeats.
          key={`${a.worker}-${a.startedAt}`}
          data-attempt-outcome={a.outcome}
          className="min-w-0 rounded-md border border-slate-200 px-3 py-2"
        >
          <div className="flex flex-wrap items-center gap-x-3 gap-y-1">
            <span className="font-medium">Attempt {a.attempt}</span>
            <Badge tone={ATTEMPT_OUTCOME_TONE[a.outcome]}>{ATTEMPT_OUTCOME_LABEL[a.outcome]}</Badge>
            <span className="text-xs text-slate-600">
              <Timestamp iso={a.startedAt} />
              {a.endedAt ? (
                <>
                  {" "}
                  to <Timestamp iso={a.endedAt} />
                </>
              ) : null}
            </span>
            <span className="font-mono text-xs break-all text-slate-600">{a.worker}</span>
          </div>
          {a.followedBy ? (
            <p className="mt-1">
              <FollowedBy attempt={a} />
            </p>
          ) : null}
          {a.error !== null ? (
            <div className="mt-1">
              <JsonDetails
                value={a.error}
                label={`Error of attempt ${a.attempt}`}
                summary="Error"
              />
            </div>
          ) : null}
        </li>
      ))}
    </ol>
  );
}

function FailureList({ why, name }: { why: WhyEffect; name: string }) {
  if (why.failures.length === 0) {
    return <p className="text-slate-600">This effect never failed.</p>;
  }
  return (
    <ol aria-label={`Failures of this effect (${name}), oldest first`} className="space-y-2">
      {why.failures.map((f) => (
        <li
          key={f.ledgerEntryId}
          data-failure-kind={f.kind}
          className="min-w-0 rounded-md border border-rose-200 bg-rose-50/40 px-3 py-2"
        >
          <div className="flex flex-wrap items-center gap-x-3 gap-y-1">
            <span className="font-medium">{FAILURE_KIND_LABEL[f.kind] ?? f.kind}</span>
            {f.attempt !== null ? (
              <span className="text-xs text-slate-600">in attempt {f.attempt}</span>
            ) : null}
            <span className="text-xs text-slate-600">
              <Timestamp iso={f.at} />
            </span>
            <span className="font-mono text-xs break-all text-slate-600">{f.actor}</span>
          </div>
          {f.performed !== null ? (
            <p className="mt-1">{PERFORMED_TEXT[f.performed] ?? `Performed: ${f.performed}.`}</p>
          ) : null}
          {f.action !== null ? (
            <p className="mt-1">
              Next: <span className="font-mono text-xs">{f.action}</span>
            </p>
          ) : null}
          {f.error !== null ? (
            <div className="mt-1">
              <JsonDetails
                value={f.error}
                label={`Error of ledger entry ${f.ledgerEntryId}`}
                summary="Error"
              />
            </div>
          ) : null}
        </li>
      ))}
    </ol>
  );
}

export function AttemptsChapter({ why, idBase }: { why: WhyEffect; idBase: string }) {
  const name = `${why.effect.tool} ${why.effect.key.slice(0, 12)}`;
  const failed = why.attempts.filter((a) => a.outcome !== "succeeded" && a.outcome !== "running");
  return (
    <Chapter id={`${idBase}-attempts`} title="Attempts and failures">
      <p>
        The task ran {plural(why.attempts.length, "attempt")}
        {failed.length > 0 ? `, ${failed.length} of them did not finish it` : ""}; this effect
        recorded {plural(why.failures.length, "failure")}.
      </p>
      {why.attemptsTruncated ? (
        <p className="text-slate-600">Only the latest attempts and reviews are listed here.</p>
      ) : null}
      <AttemptList why={why} name={name} />
      <h5 className="text-xs font-medium tracking-wide text-slate-600 uppercase">
        Failures of this effect
      </h5>
      <FailureList why={why} name={name} />
    </Chapter>
  );
}

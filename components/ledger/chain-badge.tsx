// The chain status on /ledger: what the workers' periodic verify last found. Green says how far
// the ledger is known to be intact and when that was checked; red says what failed, in the
// verifier's own words (rendered as text: stream names come from API callers).
import type { LedgerVerificationDto } from "../../lib/server/queries/get-ledger-verification";
import { Timestamp } from "../ui/timestamp";

export function ChainBadge({ status }: { status: LedgerVerificationDto }) {
  if (status.status === "never") {
    return (
      <p
        className="mb-4 rounded-md border border-slate-300 bg-slate-50 px-3 py-2 text-sm text-slate-800"
        data-testid="chain-status"
      >
        <span className="font-medium">Chain not verified yet.</span> A worker verifies the ledger's
        hash chains every few minutes once it runs;{" "}
        <code className="font-mono">agent-ledger verify</code> checks them now.
      </p>
    );
  }
  const checked = (
    <>
      {" "}
      · checked <Timestamp iso={status.verifiedAt} /> (
      {status.mode === "checkpoint" ? "from the latest signed checkpoint" : status.mode})
      {status.fullAt ? (
        <>
          {" "}
          · last full check <Timestamp iso={status.fullAt} />
        </>
      ) : null}
    </>
  );
  if (status.status === "ok") {
    return (
      <p
        className="mb-4 rounded-md border border-emerald-300 bg-emerald-50 px-3 py-2 text-sm text-emerald-900"
        data-testid="chain-status"
      >
        <span className="font-medium">
          Chain verified through entry #{status.throughId}
          {status.throughAt ? (
            <>
              {" "}
              at <Timestamp iso={status.throughAt} />
            </>
          ) : null}
        </span>
        {checked}
      </p>
    );
  }
  return (
    <div
      role="alert"
      className="mb-4 rounded-md border border-rose-300 bg-rose-50 px-3 py-2 text-sm text-rose-900"
      data-testid="chain-status"
    >
      <p>
        <span className="font-medium">Chain verification failed</span>
        {status.failedAt ? (
          <>
            {" "}
            at <Timestamp iso={status.failedAt} />
          </>
        ) : null}
        {checked}
      </p>
      <ul className="mt-1 list-disc pl-5">
        {status.problems.map((p) => (
          <li key={`${p.stream}:${p.seq}:${p.problem}`}>
            <code className="font-mono text-xs">{p.problem}</code>
            {p.entryId !== null ? ` (entry #${p.entryId})` : ""}: {p.message}
          </li>
        ))}
      </ul>
      <p className="mt-1">
        Run <code className="font-mono">agent-ledger verify</code> for the full report; this stays
        red until a full check finds every chain whole.
      </p>
    </div>
  );
}

// "Did it happen twice?": how often the effect acted and each repeat that got the stored result
// instead; then every ledger entry carrying its key, the record the story above is read from.
import Link from "next/link";
import type { WhyEffect } from "../../lib/server/queries/why";
import { JsonDetails } from "../tasks/json-view";
import { ledgerKindTone } from "../tasks/labels";
import { taskHref } from "../tasks/task-link";
import { Badge } from "../ui/badge";
import { Timestamp } from "../ui/timestamp";
import { Chapter, plural } from "./story-kit";

export function RepeatsChapter({ why, idBase }: { why: WhyEffect; idBase: string }) {
  const { executions, dedupes } = why;
  return (
    <Chapter id={`${idBase}-repeats`} title="Deduplicated?">
      <p data-testid="why-executions" data-value={executions}>
        {executions === 0
          ? "It never started acting: no worker claimed this key to perform it."
          : executions === 1
            ? "It acted once."
            : `It was started ${plural(executions, "time")}: a retry after a refusal or an unknown outcome asks the provider again with the same key.`}
      </p>
      {why.deduplicated ? (
        <>
          <p data-testid="why-deduplicated">
            Yes: {plural(dedupes.length, "later run")} reached the same key and got the stored
            result back instead of acting again.
          </p>
          <ol
            aria-label={`Repeats that were deduplicated (${why.effect.tool})`}
            className="space-y-1"
          >
            {dedupes.map((d) => (
              <li key={d.ledgerEntryId} className="flex flex-wrap gap-x-3">
                <Timestamp iso={d.at} />
                <span className="font-mono text-xs break-all text-slate-600">{d.actor}</span>
                {d.attempt !== null ? (
                  <span className="text-slate-600">attempt {d.attempt}</span>
                ) : null}
              </li>
            ))}
          </ol>
        </>
      ) : (
        <p data-testid="why-deduplicated">No: nothing repeated this key.</p>
      )}
    </Chapter>
  );
}

export function HistoryChapter({ why, idBase }: { why: WhyEffect; idBase: string }) {
  const { history, effect } = why;
  return (
    <Chapter id={`${idBase}-history`} title="Ledger history of this key">
      {history.length === 0 ? (
        <p className="text-slate-600">No ledger entry carries this key.</p>
      ) : (
        <ol
          aria-label={`Ledger entries with key ${effect.key.slice(0, 12)}, oldest first`}
          className="space-y-2"
        >
          {history.map((e) => (
            <li key={e.id} data-kind={e.kind} className="min-w-0 border-l-2 border-slate-200 pl-3">
              <div className="flex flex-wrap items-center gap-x-3 gap-y-1">
                <Badge tone={ledgerKindTone(e.kind)}>
                  <span className="font-mono">{e.kind}</span>
                </Badge>
                <span className="font-mono text-xs break-all text-slate-700">{e.actor}</span>
                <span className="text-xs text-slate-600">
                  <Timestamp iso={e.at} />
                </span>
                <span className="font-mono text-xs break-all text-slate-600">
                  {e.stream} #{e.seq}
                </span>
              </div>
              <div className="mt-1">
                <JsonDetails value={e.data} label={`Data of ledger entry ${e.id}`} summary="Data" />
              </div>
            </li>
          ))}
        </ol>
      )}
      {why.historyTruncated ? (
        <p className="text-slate-600">
          Only the first {history.length} entries are listed.{" "}
          <Link
            href={`${taskHref(effect.taskId)}#ledger`}
            prefetch={false}
            className="font-medium text-sky-800 underline"
          >
            Read the task's whole ledger
          </Link>
        </p>
      ) : null}
    </Chapter>
  );
}

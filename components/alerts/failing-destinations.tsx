"use client";
// The product's own undelivered alerts, one line per destination: "Alerts to <host> failing
// since T, N undelivered", with the rule's name, the last error and, for admins, "Retry all",
// which replays that destination's dead deliveries. Shown in the inbox, on the dead-letter page
// and in the alert settings, apart from the agents' dead letters. The host comes from the
// query (never the URL: a path or query string may be a token); everything is rendered as text.
import { useQueryClient } from "@tanstack/react-query";
import Link from "next/link";
import { useState } from "react";
import { retryAlertDeliveriesAction } from "../../lib/actions/alerts-retry";
import type {
  FailingDestinationDto,
  FailingDestinationsDto,
} from "../../lib/server/queries/list-failing-destinations";
import { ActionMessage, LedgerNote, useAdminAction } from "../admin/action-feedback";
import { ConfirmButton } from "../admin/confirm-button";
import { Timestamp } from "../ui/timestamp";

const n = (count: number) => count.toLocaleString("en-US");

function destinationName(d: FailingDestinationDto): string {
  if (d.host === null) return "a deleted rule’s destination";
  return d.host;
}

type Retry = ReturnType<typeof useRetry>;

/**
 * One "Retry all" for the section: its outcome is said below the lines, so it stays when the
 * destination's line leaves (nothing undelivered is left after a retry that requeued it all).
 */
function useRetry() {
  const action = useAdminAction(retryAlertDeliveriesAction);
  const client = useQueryClient();
  const [host, setHost] = useState<string | null>(null);
  const run = (d: FailingDestinationDto) => {
    setHost(destinationName(d));
    action.run({ ruleId: d.ruleId }, () => {
      void client.invalidateQueries({ queryKey: ["screen"] });
    });
  };
  return { ...action, run, host };
}

function Line({ d, retry }: { d: FailingDestinationDto; retry: Retry | null }) {
  return (
    <li
      data-testid="failing-destination"
      data-rule-id={d.ruleId}
      className="flex flex-col gap-2 px-4 py-3 text-sm sm:flex-row sm:items-start sm:justify-between"
    >
      <div className="min-w-0 space-y-1">
        <p className="break-words text-slate-900" data-testid="failing-destination-line">
          <span className="font-medium">Alerts to {destinationName(d)}</span> failing since{" "}
          <Timestamp iso={d.since} />, {n(d.undelivered)} undelivered
        </p>
        <p className="break-words text-xs text-slate-600">
          {d.name !== null ? <>Rule “{d.name}”. </> : "The rule was deleted. "}
          {d.lastError ? <>Last error: {d.lastError}</> : null}
        </p>
      </div>
      {retry ? (
        <div className="shrink-0">
          <ConfirmButton
            label={`Retry all ${n(d.undelivered)}`}
            question={`Replay the ${n(d.undelivered)} undelivered alerts to ${destinationName(d)}? Each keeps its webhook-id, so a receiver that already got one deduplicates it.`}
            confirmLabel="Yes, retry all"
            danger={false}
            pending={retry.pending}
            onConfirm={() => retry.run(d)}
          />
        </div>
      ) : null}
    </li>
  );
}

export function FailingDestinations({
  alerts,
  canRetry,
  listHref,
  headingLevel = 2,
}: {
  alerts: FailingDestinationsDto;
  /** The viewer may retry (alerts:write). */
  canRetry: boolean;
  /** Where the deliveries themselves are listed. */
  listHref: string;
  headingLevel?: 2 | 3;
}) {
  const retry = useRetry();
  if (alerts.destinations.length === 0 && retry.result === null) return null;
  const Heading = headingLevel === 2 ? "h2" : "h3";
  return (
    <section
      aria-labelledby="failing-alerts-heading"
      className="mb-6"
      data-testid="failing-destinations"
    >
      <Heading id="failing-alerts-heading" className="mb-1 text-base font-semibold text-slate-900">
        Undelivered alerts ·{" "}
        <span data-testid="failing-destinations-count">{n(alerts.undelivered)}</span>
      </Heading>
      <p className="mb-2 text-sm text-slate-600">
        The product’s own alert deliveries that dead-lettered, one line per destination. They are
        not counted with the agents’ dead letters.{" "}
        <Link
          href={listHref}
          className="font-medium text-sky-800 underline-offset-2 hover:underline"
        >
          List them
        </Link>
        .{canRetry ? null : " An admin can retry them."}
      </p>
      {alerts.destinations.length > 0 ? (
        <ol className="divide-y divide-slate-100 rounded-lg border border-amber-200 bg-white shadow-sm">
          {alerts.destinations.map((d) => (
            <Line key={d.ruleId} d={d} retry={canRetry ? retry : null} />
          ))}
        </ol>
      ) : null}
      <ActionMessage
        result={retry.result}
        className="mt-2 text-sm"
        success={(v) => (
          <>
            {n(v.retried)} alerts to {retry.host ?? "the destination"} queued again
            {v.skipped > 0 ? ` (${n(v.skipped)} already were)` : ""}.{" "}
            <LedgerNote kind="replay.requested" />
          </>
        )}
      />
    </section>
  );
}

// One bulk action, as the person deciding on it reads it: who froze it, when and why; what it
// would do (the preview recorded when it froze, money summed per currency); its frozen set as
// the dead-letter list shows tasks (same columns, filter and pages), each with its own preview
// on demand; its progress and outcomes (live), the confirmation, decline or withdrawal it still
// allows; and the entries of its own ledger stream — where a task's timeline and /why link
// "part of bulk action X".
import type { Metadata } from "next";
import Link from "next/link";
import { notFound } from "next/navigation";
import { z } from "zod";
import { BulkMembers } from "../../../../../components/dead-letters/bulk-members";
import { BulkPreviewSummary } from "../../../../../components/dead-letters/bulk-preview-summary";
import { BulkProgress } from "../../../../../components/dead-letters/bulk-progress";
import {
  DEAD_LETTER_FILTER_FIELDS,
  DeadLetterFilterForm,
} from "../../../../../components/dead-letters/dead-letter-filter-form";
import { deadLettersHref } from "../../../../../components/dead-letters/href";
import { filterValues } from "../../../../../components/filters/filter-values";
import { bulkHref } from "../../../../../components/tasks/bulk-href";
import { LedgerTimeline } from "../../../../../components/tasks/ledger-timeline";
import { EmptyState } from "../../../../../components/ui/empty-state";
import { DEAD_REASON_LABEL } from "../../../../../components/ui/labels";
import { InvalidAddressNotice, Notice } from "../../../../../components/ui/notice";
import { PageHeader } from "../../../../../components/ui/page-header";
import { Timestamp } from "../../../../../components/ui/timestamp";
import { pageViewer } from "../../../../../lib/auth/page";
import { pageReaders } from "../../../../../lib/auth/read-your-writes";
import { can, principalOf } from "../../../../../lib/domain/access";
import { bulkTitle } from "../../../../../lib/domain/bulk-counts";
import { getBulkAction, listBulkEntries } from "../../../../../lib/server/queries/get-bulk-action";
import {
  type BulkReviewDto,
  getBulkReview,
  listBulkMembers,
} from "../../../../../lib/server/queries/get-bulk-action-review";
import {
  parseSearchParams,
  type SearchParams,
} from "../../../../../lib/server/queries/parse-search-params";
import {
  DEAD_AGES,
  deadLetterSearchSchema,
  filterParams,
} from "../../../../../lib/server/review/dead-letter-filter";

export const dynamic = "force-dynamic";
export const metadata: Metadata = { title: "Bulk action" };

const linkClass = "font-medium text-sky-800 underline-offset-2 hover:underline";
const pageLinkClass =
  "rounded-md border border-slate-300 bg-white px-3 py-1.5 text-sm font-medium text-slate-800 shadow-xs hover:bg-slate-50";
const bulkIdSchema = z.uuid();

/** This page with a filter and page of its tasks, at its task list. */
function membersHref(bulkId: string, params: Record<string, string>): string {
  const query = new URLSearchParams(params).toString();
  return `${bulkHref(bulkId)}${query ? `?${query}` : ""}#bulk-tasks`;
}

/** How the set was chosen, in the words of the dead-letter filter, with a link to that list. */
function ChosenBy({ selection }: { selection: BulkReviewDto["selection"] }) {
  if (!selection) return <>not recorded</>;
  if (selection.kind === "ids") {
    return <>{selection.count.toLocaleString("en-US")} tasks ticked one by one</>;
  }
  const f = selection.filter;
  const parts = [
    f.reason ? `reason ${DEAD_REASON_LABEL[f.reason]}` : null,
    f.fingerprint !== undefined ? `error group “${f.fingerprint || "(no error)"}”` : null,
    f.agent ? `agent ${f.agent}` : null,
    f.tool ? `tool ${f.tool}` : null,
    f.age ? `dead for ${DEAD_AGES[f.age].label.toLowerCase()}` : null,
  ].filter((p): p is string => p !== null);
  return (
    <>
      every task that was dead then matching{" "}
      <span className="break-words">{parts.length > 0 ? parts.join(", ") : "no filter"}</span> (
      <Link href={deadLettersHref(filterParams(f))} className={linkClass}>
        that list now
      </Link>
      )
    </>
  );
}

export default async function BulkActionPage({
  params,
  searchParams,
}: {
  params: Promise<{ id: string }>;
  searchParams: Promise<SearchParams>;
}) {
  const viewer = await pageViewer("tasks:read");
  const parsed = bulkIdSchema.safeParse((await params).id.toLowerCase());
  if (!parsed.success) {
    return (
      <>
        <PageHeader title="Bulk action" />
        <Notice tone="error" title="This address does not name a bulk action.">
          A bulk action&apos;s address ends in its id (a UUID).{" "}
          <Link href="/dead-letters" className={linkClass}>
            Back to the dead letters
          </Link>
        </Notice>
      </>
    );
  }
  const raw = await searchParams;
  const search = parseSearchParams(deadLetterSearchSchema, raw);
  const { db } = await pageReaders();
  const bulk = await getBulkAction(db, viewer, parsed.data);
  if (!bulk) notFound();
  const review = await getBulkReview(db, viewer, bulk.id);
  const members = search.ok ? await listBulkMembers(db, viewer, bulk.id, search.data) : null;
  const principal = principalOf(viewer);
  const ledger = can(viewer, "ledger:read") ? await listBulkEntries(db, viewer, bulk.id) : null;
  const { before, ...filter } = search.ok ? search.data : {};
  const filterQuery = filterParams(filter);
  const filtered = Object.keys(filterQuery).length > 0;
  const n = bulk.memberCount.toLocaleString("en-US");
  const here = bulkHref(bulk.id);
  return (
    <>
      <nav aria-label="Breadcrumb" className="mb-2 text-sm">
        <ol className="flex items-center gap-1.5 text-slate-600">
          <li>
            <Link href="/dead-letters" className={linkClass}>
              Dead letters
            </Link>
          </li>
          <li aria-hidden="true">/</li>
          <li aria-current="page" className="font-mono text-xs">
            bulk {bulk.id.slice(0, 8)}
          </li>
        </ol>
      </nav>
      <PageHeader
        title={bulkTitle(bulk.action, bulk.memberCount)}
        description="A set of dead tasks frozen when a reviewer confirmed, each acted on with the same checks as its own button. Read who froze it and why, what it would do and the tasks themselves before deciding."
      />
      <div className="space-y-6">
        <section
          aria-labelledby="bulk-why-heading"
          className="rounded-lg border border-slate-200 bg-white p-4 shadow-sm sm:p-5"
        >
          <h2 id="bulk-why-heading" className="mb-3 text-base font-semibold text-slate-900">
            Who froze it, when and why
          </h2>
          <dl
            className="grid grid-cols-1 gap-x-6 gap-y-2 text-sm sm:grid-cols-[max-content_1fr]"
            data-testid="bulk-why"
          >
            <dt className="font-medium text-slate-700">Frozen by</dt>
            <dd>
              <span className="break-all">{bulk.requestedBy}</span>{" "}
              <Timestamp iso={bulk.createdAt} />
            </dd>
            <dt className="font-medium text-slate-700">Its reason</dt>
            <dd data-testid="bulk-reason">
              {review?.reason ? (
                <span className="break-words whitespace-pre-wrap">{review.reason}</span>
              ) : (
                <span className="text-slate-600">none given</span>
              )}
            </dd>
            <dt className="font-medium text-slate-700">Chosen as</dt>
            <dd>
              <ChosenBy selection={review?.selection ?? null} />, as of{" "}
              <Timestamp iso={bulk.asOf} />
            </dd>
            {bulk.action === "replay" ? (
              <>
                <dt className="font-medium text-slate-700">Replays from</dt>
                <dd>
                  {review?.stepName ? (
                    <>
                      the step named <span className="font-mono">{review.stepName}</span>
                    </>
                  ) : (
                    "the start (step 1)"
                  )}
                </dd>
              </>
            ) : null}
          </dl>
          {review && review.moved > 0 ? (
            <p className="mt-3 text-sm text-amber-900" data-testid="bulk-moved">
              {review.moved.toLocaleString("en-US")} of its {n} tasks changed since it froze
              (someone acted on them): the bulk action will not act on those again.
            </p>
          ) : null}
        </section>

        <BulkProgress initial={bulk} me={principal.actor} linkToPage={false}>
          {review?.preview ? (
            <BulkPreviewSummary
              preview={review.preview}
              heading="What it would do, as previewed when it froze"
            />
          ) : bulk.action === "replay" || bulk.action === "resume" ? null : (
            <p className="text-sm text-slate-700">
              A {bulk.action === "reject" ? "rejection" : "cancellation"} ends each task: no effect
              runs.
            </p>
          )}
        </BulkProgress>

        <section
          id="bulk-tasks"
          aria-labelledby="bulk-tasks-heading"
          className="rounded-lg border border-slate-200 bg-white p-4 shadow-sm sm:p-5"
        >
          <h2 id="bulk-tasks-heading" className="mb-3 text-base font-semibold text-slate-900">
            {filtered ? "Its dead tasks matching this filter" : "Its tasks that are still dead"} ·{" "}
            <span data-testid="bulk-members-matching">
              {(members?.matching ?? 0).toLocaleString("en-US")}
            </span>{" "}
            of {n}
          </h2>
          <DeadLetterFilterForm
            values={filterValues(raw, DEAD_LETTER_FILTER_FIELDS)}
            action={here}
          />
          {!search.ok ? (
            <InvalidAddressNotice
              title="This list's address is not valid."
              errors={search.errors}
              resetHref={here}
              resetLabel="Show all its tasks"
            />
          ) : members && members.tasks.length > 0 ? (
            <>
              <BulkMembers
                bulkId={bulk.id}
                tasks={members.tasks}
                caption="Its tasks, most recently dead first"
              />
              <nav aria-label="Pages of its tasks" className="mt-4 flex flex-wrap gap-2">
                {before ? (
                  <Link href={membersHref(bulk.id, filterQuery)} className={pageLinkClass}>
                    Most recent
                  </Link>
                ) : null}
                {members.olderBefore ? (
                  <Link
                    href={membersHref(bulk.id, { ...filterQuery, before: members.olderBefore })}
                    className={pageLinkClass}
                  >
                    Older tasks
                  </Link>
                ) : null}
              </nav>
            </>
          ) : (
            <EmptyState title={filtered ? "None of its dead tasks matches" : "None is dead now"}>
              {filtered
                ? "Nothing of this set matches the filter."
                : "Every task of this set has left the dead state: its outcome per task is above."}
            </EmptyState>
          )}
        </section>

        {ledger ? (
          <section
            aria-labelledby="bulk-ledger-heading"
            className="rounded-lg border border-slate-200 bg-white p-4 shadow-sm sm:p-5"
          >
            <h2 id="bulk-ledger-heading" className="mb-3 text-base font-semibold text-slate-900">
              Its ledger entries, oldest first
            </h2>
            {ledger.total > ledger.entries.length ? (
              <p className="mb-3 text-sm text-slate-700">
                The first {ledger.entries.length} of {ledger.total.toLocaleString("en-US")}.{" "}
                <Link href={`/ledger?q=${bulk.id}`} className={linkClass}>
                  Every entry in the ledger explorer
                </Link>
              </p>
            ) : null}
            <LedgerTimeline
              entries={ledger.entries}
              gap={null}
              effectKeys={[]}
              label="Ledger entries of this bulk action, oldest first"
            />
          </section>
        ) : null}
      </div>
    </>
  );
}

import type { Metadata } from "next";
import Link from "next/link";
import {
  DEAD_LETTER_FILTER_FIELDS,
  DeadLetterFilterForm,
} from "../../../components/dead-letters/dead-letter-filter-form";
import { deadLettersHref } from "../../../components/dead-letters/href";
import { LiveDeadLetters } from "../../../components/dead-letters/live-dead-letters";
import { filterValues } from "../../../components/filters/filter-values";
import { InvalidAddress } from "../../../components/filters/invalid-address";
import { PageHeader } from "../../../components/ui/page-header";
import { pageViewer } from "../../../lib/auth/page";
import { pageReaders } from "../../../lib/auth/read-your-writes";
import { can, principalOf } from "../../../lib/domain/access";
import { BULK_ACTIONS, BULK_TASK_ACTION } from "../../../lib/domain/bulk-actions";
import { refusalOf } from "../../../lib/domain/task-actions";
import { readDeadLettersScreen } from "../../../lib/server/queries/dead-letters-screen";
import { listPendingBulkActions } from "../../../lib/server/queries/get-bulk-action";
import {
  parseSearchParams,
  type SearchParams,
} from "../../../lib/server/queries/parse-search-params";
import {
  deadLetterSearchSchema,
  filterParams,
} from "../../../lib/server/review/dead-letter-filter";

export const dynamic = "force-dynamic";
export const metadata: Metadata = { title: "Dead letters" };

const linkClass =
  "rounded-md border border-slate-300 bg-white px-3 py-1.5 text-sm font-medium text-slate-800 shadow-xs hover:bg-slate-50";

export default async function DeadLettersPage({
  searchParams,
}: {
  searchParams: Promise<SearchParams>;
}) {
  const viewer = await pageViewer("tasks:read");
  const raw = await searchParams;
  const parsed = parseSearchParams(deadLetterSearchSchema, raw);
  const header = (
    <PageHeader
      title="Dead letters"
      description="Agents’ tasks that stopped retrying and wait for a person: grouped by why they stopped, then by error. Pick a group to list its tasks and act on them together. The product’s own undelivered alerts are one line per destination, counted apart unless you ask for them."
    />
  );
  if (!parsed.ok) {
    return (
      <InvalidAddress
        header={header}
        title="This dead-letters address is not valid."
        errors={parsed.errors}
        resetHref="/dead-letters"
        resetLabel="Show every dead letter"
      >
        <DeadLetterFilterForm values={filterValues(raw, DEAD_LETTER_FILTER_FIELDS)} />
      </InvalidAddress>
    );
  }
  const search = parsed.data;
  const { before, ...filter } = search;
  const params = filterParams(filter);
  const { db } = await pageReaders();
  const screen = await readDeadLettersScreen(db, viewer, search);
  const principal = principalOf(viewer);
  // The buttons the task-actions table allows on a dead task; each task is checked again.
  const allowed = Object.fromEntries(
    BULK_ACTIONS.map((a) => [a, refusalOf(BULK_TASK_ACTION[a], "dead", principal) === null]),
  ) as Record<(typeof BULK_ACTIONS)[number], boolean>;
  const pendingBulks = await listPendingBulkActions(db, viewer);
  const filtered = Object.keys(params).length > 0;

  return (
    <>
      {header}
      <DeadLetterFilterForm values={filter} />

      <LiveDeadLetters
        initial={screen}
        params={{ ...params, before: typeof raw.before === "string" ? raw.before : undefined }}
        filtered={filtered}
        filter={filter}
        allowed={allowed}
        me={principal.actor}
        pendingBulks={pendingBulks}
        canRetryAlerts={can(viewer, "alerts:write")}
      />
      <nav aria-label="Dead-letter pages" className="mt-4 flex flex-wrap gap-2">
        {before ? (
          <Link href={deadLettersHref(params)} className={linkClass}>
            Most recent
          </Link>
        ) : null}
        {screen.list.olderBefore ? (
          <Link
            href={deadLettersHref({ ...params, before: screen.list.olderBefore })}
            className={linkClass}
          >
            Older dead letters
          </Link>
        ) : null}
      </nav>
    </>
  );
}

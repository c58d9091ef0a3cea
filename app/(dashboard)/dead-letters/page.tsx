import type { Metadata } from "next";
import Link from "next/link";
import { deadLettersHref } from "../../../components/dead-letters/href";
import { LiveDeadLetters } from "../../../components/dead-letters/live-dead-letters";
import { DEAD_REASON_LABEL } from "../../../components/ui/labels";
import { InvalidAddressNotice } from "../../../components/ui/notice";
import { PageHeader } from "../../../components/ui/page-header";
import { Stat } from "../../../components/ui/stat";
import { pageViewer } from "../../../lib/auth/page";
import { principalOf } from "../../../lib/domain/access";
import { BULK_ACTIONS, BULK_TASK_ACTION } from "../../../lib/domain/bulk-actions";
import { refusalOf } from "../../../lib/domain/task-actions";
import { DEAD_REASONS } from "../../../lib/domain/task-states";
import { getDb } from "../../../lib/server/db";
import { readDeadLettersScreen } from "../../../lib/server/queries/dead-letters-screen";
import { getBulkAction, listPendingBulkActions } from "../../../lib/server/queries/get-bulk-action";
import {
  parseSearchParams,
  type SearchParams,
} from "../../../lib/server/queries/parse-search-params";
import {
  DEAD_AGES,
  type DeadAge,
  deadLetterSearchSchema,
  filterParams,
} from "../../../lib/server/review/dead-letter-filter";

export const dynamic = "force-dynamic";
export const metadata: Metadata = { title: "Dead letters" };

const linkClass =
  "rounded-md border border-slate-300 bg-white px-3 py-1.5 text-sm font-medium text-slate-800 shadow-xs hover:bg-slate-50";
const fieldClass =
  "mt-1 w-48 rounded-md border border-slate-300 bg-white px-3 py-1.5 text-sm shadow-xs";
const labelClass = "block text-sm font-medium text-slate-800";

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
      description="Tasks that stopped retrying and wait for a person: grouped by why they stopped, then by error. Pick a group to list its tasks and act on them together."
    />
  );
  if (!parsed.ok) {
    return (
      <>
        {header}
        <InvalidAddressNotice
          title="This dead-letters address is not valid."
          errors={parsed.errors}
          resetHref="/dead-letters"
          resetLabel="Show every dead letter"
        />
      </>
    );
  }
  const search = parsed.data;
  const { before, ...filter } = search;
  const params = filterParams(filter);
  const db = getDb();
  const screen = await readDeadLettersScreen(db, viewer, search);
  const principal = principalOf(viewer);
  // The buttons the task-actions table allows on a dead task; each task is checked again.
  const allowed = Object.fromEntries(
    BULK_ACTIONS.map((a) => [a, refusalOf(BULK_TASK_ACTION[a], "dead", principal) === null]),
  ) as Record<(typeof BULK_ACTIONS)[number], boolean>;
  const pendingBulks = (
    await Promise.all(
      (await listPendingBulkActions(db, viewer)).map((b) => getBulkAction(db, viewer, b.id)),
    )
  ).filter((b) => b !== null);
  const filtered = Object.keys(params).length > 0;

  return (
    <>
      {header}
      <ul className="mb-6 grid grid-cols-2 gap-3 sm:grid-cols-3 lg:grid-cols-6">
        {screen.groups.groups.map((g) => (
          <li key={g.reason}>
            <Stat
              label={DEAD_REASON_LABEL[g.reason]}
              value={g.count}
              tone="bad"
              href={g.count > 0 ? deadLettersHref({ reason: g.reason }) : undefined}
              testId={`dead-letters-${g.reason}`}
            />
          </li>
        ))}
      </ul>

      <search aria-label="Filter dead letters">
        <form method="get" action="/dead-letters" className="mb-6 flex flex-wrap items-end gap-3">
          <div>
            <label htmlFor="dl-reason" className={labelClass}>
              Reason
            </label>
            <select
              id="dl-reason"
              name="reason"
              defaultValue={filter.reason ?? ""}
              className={fieldClass}
            >
              <option value="">Any reason</option>
              {DEAD_REASONS.map((r) => (
                <option key={r} value={r}>
                  {DEAD_REASON_LABEL[r]}
                </option>
              ))}
            </select>
          </div>
          <div>
            <label htmlFor="dl-fingerprint" className={labelClass}>
              Error group
            </label>
            <input
              id="dl-fingerprint"
              name="fingerprint"
              defaultValue={filter.fingerprint ?? ""}
              placeholder="refund <id> failed: <n>"
              className={`${fieldClass} w-72`}
            />
          </div>
          <div>
            <label htmlFor="dl-agent" className={labelClass}>
              Agent
            </label>
            <input
              id="dl-agent"
              name="agent"
              defaultValue={filter.agent ?? ""}
              className={fieldClass}
            />
          </div>
          <div>
            <label htmlFor="dl-tool" className={labelClass}>
              Tool
            </label>
            <input
              id="dl-tool"
              name="tool"
              defaultValue={filter.tool ?? ""}
              className={fieldClass}
            />
          </div>
          <div>
            <label htmlFor="dl-age" className={labelClass}>
              Dead for
            </label>
            <select id="dl-age" name="age" defaultValue={filter.age ?? ""} className={fieldClass}>
              <option value="">Any time</option>
              {(Object.keys(DEAD_AGES) as DeadAge[]).map((a) => (
                <option key={a} value={a}>
                  {DEAD_AGES[a].label}
                </option>
              ))}
            </select>
          </div>
          <button
            type="submit"
            className="rounded-md bg-slate-900 px-3 py-1.5 text-sm font-medium text-white hover:bg-slate-700"
          >
            Filter
          </button>
          {filtered ? (
            <Link href="/dead-letters" className={linkClass}>
              Clear filter
            </Link>
          ) : null}
        </form>
      </search>

      <LiveDeadLetters
        initial={screen}
        params={{ ...params, before: typeof raw.before === "string" ? raw.before : undefined }}
        filtered={filtered}
        filter={filter}
        allowed={allowed}
        me={principal.actor}
        pendingBulks={pendingBulks}
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

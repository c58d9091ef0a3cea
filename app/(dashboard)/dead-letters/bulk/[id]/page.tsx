// One bulk action: its progress and each task's outcome (live), the confirmation or withdrawal
// it still allows, and the entries of its own ledger stream — where a task's timeline and /why
// link "part of bulk action X".
import type { Metadata } from "next";
import Link from "next/link";
import { notFound } from "next/navigation";
import { z } from "zod";
import { BulkProgress } from "../../../../../components/dead-letters/bulk-progress";
import { LedgerTimeline } from "../../../../../components/tasks/ledger-timeline";
import { Notice } from "../../../../../components/ui/notice";
import { PageHeader } from "../../../../../components/ui/page-header";
import { pageViewer } from "../../../../../lib/auth/page";
import { pageReaders } from "../../../../../lib/auth/read-your-writes";
import { can, principalOf } from "../../../../../lib/domain/access";
import { BULK_TASK_ACTION } from "../../../../../lib/domain/bulk-actions";
import { refusalOf } from "../../../../../lib/domain/task-actions";
import { getBulkAction, listBulkEntries } from "../../../../../lib/server/queries/get-bulk-action";

export const dynamic = "force-dynamic";
export const metadata: Metadata = { title: "Bulk action" };

const linkClass = "font-medium text-sky-800 underline-offset-2 hover:underline";
const bulkIdSchema = z.uuid();

export default async function BulkActionPage({ params }: { params: Promise<{ id: string }> }) {
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
  const { db } = await pageReaders();
  const bulk = await getBulkAction(db, viewer, parsed.data);
  if (!bulk) notFound();
  const principal = principalOf(viewer);
  const ledger = can(viewer, "ledger:read") ? await listBulkEntries(db, viewer, bulk.id) : null;
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
        title={`Bulk action ${bulk.id.slice(0, 8)}`}
        description="A set of dead tasks frozen when the reviewer confirmed, each acted on with the same checks as its own button. Its outcomes per task and its own ledger entries."
      />
      <div className="space-y-6">
        <BulkProgress
          initial={bulk}
          me={principal.actor}
          canConfirm={refusalOf(BULK_TASK_ACTION[bulk.action], "dead", principal) === null}
          linkToPage={false}
        />
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

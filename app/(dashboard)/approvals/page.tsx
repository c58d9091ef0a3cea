import type { Metadata } from "next";
import { LiveApprovals } from "../../../components/approvals/live-approvals";
import { PageHeader } from "../../../components/ui/page-header";
import { pageViewer } from "../../../lib/auth/page";
import { pageReaders } from "../../../lib/auth/read-your-writes";
import { actorOf, can } from "../../../lib/domain/access";
import { getApprovalsScreen } from "../../../lib/server/queries/get-approvals-screen";
import { DECIDED_APPROVALS_LIMIT } from "../../../lib/server/queries/list-approvals";

export const dynamic = "force-dynamic";
export const metadata: Metadata = { title: "Approvals" };

export default async function ApprovalsPage() {
  const viewer = await pageViewer("tasks:read");
  const { db, pool } = await pageReaders();
  const screen = await getApprovalsScreen(db, pool, viewer);
  // The scope alone, for the sentence: whether a given request can be decided now is the
  // task's allowedActions.
  const decides = can(viewer, "approvals:decide");

  return (
    <>
      <PageHeader
        title="Approvals"
        description="Side effects that need a person's yes before they act, such as refunds above a threshold. Each request shows the exact arguments an approval would be bound to."
      />
      <div className="space-y-6">
        <p className="rounded-md border border-slate-200 bg-white px-4 py-3 text-sm text-slate-700 shadow-xs">
          Every decision is recorded in the ledger with the reviewer's name. Effects that move money
          need two different reviewers: the first approval is recorded and the request waits for a
          second.
          {decides ? null : " Your role can read these requests; a reviewer decides them."}
        </p>
        <LiveApprovals
          initial={screen}
          actor={actorOf(viewer)}
          decidedLimit={DECIDED_APPROVALS_LIMIT}
        />
      </div>
    </>
  );
}

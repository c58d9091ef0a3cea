import type { Metadata } from "next";
import { InvalidAddress } from "../../../components/filters/invalid-address";
import { InboxList } from "../../../components/inbox/inbox-list";
import { PageHeader } from "../../../components/ui/page-header";
import { pageViewer } from "../../../lib/auth/page";
import { pageReaders } from "../../../lib/auth/read-your-writes";
import { can } from "../../../lib/domain/access";
import { inboxSearchSchema, listInbox } from "../../../lib/server/queries/list-inbox";
import {
  parseSearchParams,
  type SearchParams,
} from "../../../lib/server/queries/parse-search-params";

export const dynamic = "force-dynamic";
export const metadata: Metadata = { title: "Inbox" };

export default async function InboxPage({ searchParams }: { searchParams: Promise<SearchParams> }) {
  const viewer = await pageViewer("tasks:read");
  const parsed = parseSearchParams(inboxSearchSchema, await searchParams);
  const header = (
    <PageHeader
      title="Inbox"
      description="Everything the agents left waiting for a person, oldest first: dead letters, approval requests, money actions waiting for a second reviewer, and effects whose outcome is unknown. Open an item to act on it; “Next in inbox” on the task page takes you on to the next. The product’s own undelivered alerts are counted apart, one line per destination."
    />
  );
  if (!parsed.ok) {
    return (
      <InvalidAddress
        header={header}
        title="This inbox address is not valid."
        errors={parsed.errors}
        resetHref="/inbox"
        resetLabel="Show everything waiting"
      />
    );
  }
  const inbox = await listInbox((await pageReaders()).pool, viewer, parsed.data);
  return (
    <>
      {header}
      <InboxList initial={inbox} canRetryAlerts={can(viewer, "alerts:write")} />
    </>
  );
}

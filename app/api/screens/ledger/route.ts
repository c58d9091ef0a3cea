import { screenRoute } from "../../../../lib/api/screen-route";
import { ledgerSearchSchema } from "../../../../lib/server/queries/ledger-search";
import { listLedgerEntries } from "../../../../lib/server/queries/list-ledger-entries";

export const dynamic = "force-dynamic";

export const GET = screenRoute({
  scope: "ledger:read",
  search: ledgerSearchSchema,
  read: (viewer, search, { db }) => listLedgerEntries(db, viewer, search),
});

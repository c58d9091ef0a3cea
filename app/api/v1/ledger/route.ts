import { route } from "../../../../lib/api/endpoint";
import { listLedgerEndpoint } from "../../../../lib/api/v1/ledger";

export const dynamic = "force-dynamic";
export const GET = route(listLedgerEndpoint);

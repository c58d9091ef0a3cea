import type { Metadata } from "next";
import { NotAvailable } from "../../../../components/ui/not-available";
import { pageViewer } from "../../../../lib/auth/page";

export const metadata: Metadata = { title: "API tokens" };

export default async function TokensPage() {
  await pageViewer("tokens:manage");
  return (
    <NotAvailable
      title="API tokens"
      purpose="Credentials for machines that enqueue tasks and read tasks, the ledger and effects over the HTTP API."
      plans={[
        "Create a token with the scopes it needs; see its secret once.",
        "See when each token was last used, and revoke it.",
      ]}
    />
  );
}

import type { Metadata } from "next";
import { NotAvailable } from "../../../../components/ui/not-available";
import { pageViewer } from "../../../../lib/auth/page";

export const metadata: Metadata = { title: "Users" };

export default async function UsersPage() {
  await pageViewer("users:manage");
  return (
    <NotAvailable
      title="Users"
      purpose="Who can sign in to the dashboard and what each person may do."
      plans={[
        "Invite people and give each the reviewer, ops or admin role.",
        "Change or remove a role, recorded in the ledger.",
      ]}
    />
  );
}

import type { Metadata } from "next";
import { NotAvailable } from "../../../../components/ui/not-available";

export const metadata: Metadata = { title: "Retry policies" };

export default function RetryPoliciesPage() {
  return (
    <NotAvailable
      title="Retry policies"
      purpose="How many times tasks retry, how long they back off and how much model spend each may use."
      plans={[
        "Edit the global default and per-agent overrides.",
        "Apply a change to later failures of existing tasks.",
        "Record every change in the ledger with before, after and who made it.",
      ]}
    />
  );
}

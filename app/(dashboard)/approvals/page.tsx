import type { Metadata } from "next";
import { NotAvailable } from "../../../components/ui/not-available";

export const metadata: Metadata = { title: "Approvals" };

export default function ApprovalsPage() {
  return (
    <NotAvailable
      title="Approvals"
      purpose="Side effects that need a person's yes before they run, such as refunds above a threshold."
      plans={[
        "See each waiting effect with its exact payload and fingerprint.",
        "Approve it once, bound to that payload, or reject it with a reason.",
        "Require two different reviewers for effects that move money.",
      ]}
    />
  );
}

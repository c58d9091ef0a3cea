import type { Metadata } from "next";
import { NotAvailable } from "../../../components/ui/not-available";
import { pageViewer } from "../../../lib/auth/page";

export const metadata: Metadata = { title: "Why?" };

export default async function WhyPage() {
  await pageViewer("ledger:read");
  return (
    <NotAvailable
      title="Why?"
      purpose="Answers “why did it send that?” from the record instead of guesswork."
      plans={[
        "Start from an effect, an idempotency key or a message id.",
        "Follow the ledger back through the tool call, the model call that chose it and the task input.",
        "See who approved, replayed or corrected it, and when.",
      ]}
    />
  );
}

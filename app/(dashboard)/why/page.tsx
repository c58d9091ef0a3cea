import type { Metadata } from "next";
import { redirect } from "next/navigation";
import { z } from "zod";
import { InvalidAddress } from "../../../components/filters/invalid-address";
import { PageHeader } from "../../../components/ui/page-header";
import { Timestamp } from "../../../components/ui/timestamp";
import { isLookup, LOOKUP_LABEL, LOOKUPS, type Lookup } from "../../../components/why/labels";
import { LookupForm } from "../../../components/why/lookup-form";
import { WhyAnswerView, whyHref } from "../../../components/why/why-answer";
import { pageViewer } from "../../../lib/auth/page";
import { pageReaders } from "../../../lib/auth/read-your-writes";
import {
  parseSearchParams,
  type SearchParams,
} from "../../../lib/server/queries/parse-search-params";
import { explainWhy, WHY_LOOKUPS_SENTENCE, whyQuerySchema } from "../../../lib/server/queries/why";

export const dynamic = "force-dynamic";
export const metadata: Metadata = { title: "Why?" };

/** What the form sends; the page answers it at the lookup's own address, so answers can be linked. */
const formSchema = z.strictObject({
  by: z.custom<Lookup>((v) => typeof v === "string" && isLookup(v), {
    error: `is not a lookup here. ${WHY_LOOKUPS_SENTENCE}`,
  }),
  q: z
    .string({ error: "is empty: type the key, id or address to look up." })
    .trim()
    .min(1, { error: "is empty: type the key, id or address to look up." }),
  limit: z.string().optional(),
});

/** The lookup named in the address, to fill the form in again as the visitor typed it. */
function typed(raw: SearchParams): { by: Lookup; value: string } {
  const fromForm = typeof raw.by === "string" && isLookup(raw.by) ? raw.by : undefined;
  if (fromForm) return { by: fromForm, value: typeof raw.q === "string" ? raw.q : "" };
  for (const by of LOOKUPS) {
    const value = raw[by];
    if (typeof value === "string" && value !== "") return { by, value };
  }
  return { by: "recipient", value: "" };
}

function Header({ asOf }: { asOf?: string }) {
  return (
    <PageHeader
      title="Why?"
      description="“Why did it send that?”, answered from the record: for each side effect, what was done, the model decision that chose it, the task and who enqueued it, every attempt and failure, the people who stepped in, and whether a repeat was deduplicated."
      aside={
        asOf ? (
          <>
            As of <Timestamp iso={asOf} />
          </>
        ) : undefined
      }
    />
  );
}

export default async function WhyPage({ searchParams }: { searchParams: Promise<SearchParams> }) {
  const viewer = await pageViewer("ledger:read");
  const raw = await searchParams;
  const form = typed(raw);
  const invalid = (errors: string[]) => (
    <InvalidAddress
      header={<Header />}
      title="This lookup is not valid."
      errors={errors}
      resetHref="/why"
      resetLabel="Start a new lookup"
    >
      <LookupForm by={form.by} value={form.value} />
    </InvalidAddress>
  );

  if (raw.by !== undefined || raw.q !== undefined) {
    const sent = parseSearchParams(formSchema, raw);
    if (sent.ok) {
      // The address it lands on is parsed like any other: a wrong value is explained there.
      redirect(whyHref(sent.data.by, sent.data.q, sent.data.limit));
    }
    return invalid(sent.errors);
  }

  const asked = Object.values(raw).some((v) => v !== undefined && v !== "");
  if (!asked) {
    return (
      <>
        <Header />
        <LookupForm by={form.by} value="" />
        <section aria-labelledby="why-start" className="max-w-3xl text-sm text-slate-700">
          <h2 id="why-start" className="mb-2 text-base font-semibold text-slate-900">
            Start from what you have
          </h2>
          <ul className="list-disc space-y-1 pl-5">
            <li>{LOOKUP_LABEL.recipient}: every email sent, or tried, to that address.</li>
            <li>{LOOKUP_LABEL.messageId}: from a mail log or a received email's headers.</li>
            <li>{LOOKUP_LABEL.refundId}: as the payment provider shows it, e.g. re_123.</li>
            <li>{LOOKUP_LABEL.key}: from a task's effects or the ledger.</li>
            <li>{LOOKUP_LABEL.taskId}: every side effect of one task.</li>
          </ul>
        </section>
      </>
    );
  }

  const parsed = parseSearchParams(whyQuerySchema, raw);
  if (!parsed.ok) {
    return invalid(parsed.errors);
  }

  const answer = await explainWhy((await pageReaders()).db, viewer, parsed.data);
  return (
    <>
      <Header asOf={answer.asOf} />
      <LookupForm by={answer.query.by} value={form.value} />
      <WhyAnswerView answer={answer} />
    </>
  );
}

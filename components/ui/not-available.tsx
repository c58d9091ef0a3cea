import { PageHeader } from "./page-header";

type NotAvailableProps = {
  title: string;
  /** One sentence on what the section is for. */
  purpose: string;
  /** What it will let people do, in a few short items. */
  plans: string[];
};

/** An honest page for a section that is planned but not built yet. */
export function NotAvailable({ title, purpose, plans }: NotAvailableProps) {
  return (
    <>
      <PageHeader title={title} description={purpose} />
      <div className="max-w-2xl rounded-lg border border-slate-200 bg-white p-5 shadow-sm">
        <p className="font-medium text-slate-900">This section is not available yet.</p>
        <p className="mt-1 text-sm text-slate-600">When it is, it will let you:</p>
        <ul className="mt-3 list-disc space-y-1 pl-5 text-sm text-slate-800">
          {plans.map((plan) => (
            <li key={plan}>{plan}</li>
          ))}
        </ul>
      </div>
    </>
  );
}

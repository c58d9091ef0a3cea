import Link from "next/link";
import { PageHeader } from "../../../../components/ui/page-header";

export default function TaskNotFound() {
  return (
    <>
      <PageHeader title="No such task" />
      <div className="max-w-2xl rounded-lg border border-slate-200 bg-white p-5 shadow-sm">
        <p className="font-medium text-slate-900">There is no task with this id.</p>
        <p className="mt-1 text-sm text-slate-600">
          The link may have been mistyped, or it may come from another installation's database.
        </p>
        <p className="mt-4 text-sm">
          <Link href="/tasks" className="font-medium text-sky-800 underline">
            Browse the tasks
          </Link>
        </p>
      </div>
    </>
  );
}

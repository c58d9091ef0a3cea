import type { Metadata } from "next";
import Link from "next/link";
import { InvalidAddress } from "../../../components/filters/invalid-address";
import { LiveTasks } from "../../../components/tasks/live-tasks";
import { TasksFilter } from "../../../components/tasks/tasks-filter";
import { TASK_STATUS_LABEL } from "../../../components/ui/labels";
import { PageHeader } from "../../../components/ui/page-header";
import { pageViewer } from "../../../lib/auth/page";
import { pageReaders } from "../../../lib/auth/read-your-writes";
import type { TaskStatus } from "../../../lib/domain/task-states";
import {
  listTasks,
  TASKS_PAGE_SIZE,
  taskSearchSchema,
} from "../../../lib/server/queries/list-tasks";
import {
  parseSearchParams,
  type SearchParams,
} from "../../../lib/server/queries/parse-search-params";

export const dynamic = "force-dynamic";
export const metadata: Metadata = { title: "Tasks" };

const linkClass =
  "rounded-md border border-slate-300 bg-white px-3 py-1.5 text-sm font-medium text-slate-800 shadow-xs hover:bg-slate-50";

function tasksHref(params: { status?: TaskStatus; before?: string }): string {
  const query = new URLSearchParams();
  if (params.status) query.set("status", params.status);
  if (params.before) query.set("before", params.before);
  const text = query.toString();
  return text ? `/tasks?${text}` : "/tasks";
}

export default async function TasksPage({ searchParams }: { searchParams: Promise<SearchParams> }) {
  const viewer = await pageViewer("tasks:read");
  const raw = await searchParams;
  const parsed = parseSearchParams(taskSearchSchema, raw);
  const header = (
    <PageHeader
      title="Tasks"
      description="Units of work for your agents, newest first. Filter by status to find what is stuck or waiting."
    />
  );

  if (!parsed.ok) {
    return (
      <InvalidAddress
        header={header}
        title="This tasks address is not valid."
        errors={parsed.errors}
        resetHref="/tasks"
        resetLabel="Show the latest tasks"
      >
        <TasksFilter status={typeof raw.status === "string" ? raw.status : undefined} />
      </InvalidAddress>
    );
  }

  const search = parsed.data;
  const page = await listTasks((await pageReaders()).db, viewer, search);
  const statusLabel = search.status ? TASK_STATUS_LABEL[search.status] : undefined;

  return (
    <>
      {header}
      <TasksFilter status={search.status} />

      <section
        aria-labelledby="tasks-results"
        className="rounded-lg border border-slate-200 bg-white p-4 shadow-sm sm:p-5"
      >
        <h2 id="tasks-results" className="mb-3 text-base font-semibold text-slate-900">
          {statusLabel ? `${statusLabel} tasks` : "All tasks"}
          {search.before ? <span className="font-normal text-slate-600"> (older page)</span> : null}
        </h2>
        <LiveTasks
          initial={page}
          params={{
            status: search.status,
            before: typeof raw.before === "string" ? raw.before : undefined,
          }}
          caption={`Tasks, newest first, up to ${TASKS_PAGE_SIZE} per page`}
          empty={{
            title: search.before ? "No older tasks" : "No tasks match",
            body: statusLabel
              ? `No task is ${statusLabel.toLowerCase()} right now.`
              : "Tasks appear here as soon as they are enqueued, from the CLI or the HTTP API.",
          }}
        />
        <nav aria-label="Task pages" className="mt-4 flex flex-wrap gap-2">
          {search.before ? (
            <Link href={tasksHref({ status: search.status })} className={linkClass}>
              Newest tasks
            </Link>
          ) : null}
          {page.olderBefore ? (
            <Link
              href={tasksHref({ status: search.status, before: page.olderBefore })}
              className={linkClass}
            >
              Older tasks
            </Link>
          ) : null}
        </nav>
      </section>
    </>
  );
}

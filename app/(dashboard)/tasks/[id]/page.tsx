import type { Metadata } from "next";
import Link from "next/link";
import { notFound } from "next/navigation";
import { InvalidAddress } from "../../../../components/filters/invalid-address";
import { InboxNext } from "../../../../components/inbox/inbox-next";
import { LiveTaskPage } from "../../../../components/task-page/live-task-page";
import { TraceLink } from "../../../../components/tasks/trace-link";
import { Notice } from "../../../../components/ui/notice";
import { PageHeader } from "../../../../components/ui/page-header";
import { Timestamp } from "../../../../components/ui/timestamp";
import { pageViewer } from "../../../../lib/auth/page";
import { pageReaders } from "../../../../lib/auth/read-your-writes";
import { actorOf } from "../../../../lib/domain/access";
import { taskStream } from "../../../../lib/server/ledger/append-ledger";
import { taskIdSchema } from "../../../../lib/server/queries/get-task-detail";
import { getTaskScreen } from "../../../../lib/server/queries/get-task-screen";
import { timelineSearchSchema } from "../../../../lib/server/queries/list-task-timeline";
import {
  parseSearchParams,
  type SearchParams,
} from "../../../../lib/server/queries/parse-search-params";

export const dynamic = "force-dynamic";

type Props = { params: Promise<{ id: string }>; searchParams: Promise<SearchParams> };

const linkClass = "font-medium text-sky-800 underline-offset-2 hover:underline";

export async function generateMetadata({ params }: Props): Promise<Metadata> {
  const parsed = taskIdSchema.safeParse((await params).id);
  return { title: parsed.success ? `Task ${parsed.data.slice(0, 8)}` : "Task" };
}

function Breadcrumb({ current }: { current: string }) {
  return (
    <nav aria-label="Breadcrumb" className="mb-2 text-sm">
      <ol className="flex items-center gap-1.5 text-slate-600">
        <li>
          <Link href="/tasks" className={linkClass}>
            Tasks
          </Link>
        </li>
        <li aria-hidden="true">/</li>
        <li aria-current="page" className="font-mono text-xs">
          {current}
        </li>
      </ol>
    </nav>
  );
}

export default async function TaskPage({ params, searchParams }: Props) {
  const viewer = await pageViewer("tasks:read");
  const raw = (await params).id;
  const parsed = taskIdSchema.safeParse(raw);
  if (!parsed.success) {
    return (
      <>
        <Breadcrumb current="Not a task id" />
        <PageHeader title="Task" />
        <Notice tone="error" title="This address does not name a task.">
          <p>
            <code className="font-mono break-all">{raw.slice(0, 200)}</code>{" "}
            {parsed.error.issues[0]?.message ?? "is not a task id."}
          </p>
          <p className="mt-2">
            <Link href="/tasks" className="font-medium underline">
              Find the task in the list
            </Link>
          </p>
        </Notice>
      </>
    );
  }

  const search = parseSearchParams(timelineSearchSchema, await searchParams);
  if (!search.ok) {
    return (
      <InvalidAddress
        header={
          <>
            <Breadcrumb current={parsed.data.slice(0, 8)} />
            <PageHeader title={`Task ${parsed.data.slice(0, 8)}`} />
          </>
        }
        title="This task address is not valid."
        errors={search.errors}
        resetHref={`/tasks/${parsed.data}`}
        resetLabel="Show the whole task"
      />
    );
  }

  const { db, pool } = await pageReaders();
  const screen = await getTaskScreen(db, pool, viewer, {
    id: parsed.data,
    ...search.data,
  });
  if (!screen) notFound();
  const { detail } = screen;
  const { task } = detail;
  const short = task.id.slice(0, 8);

  return (
    <>
      <Breadcrumb current={short} />
      <InboxNext taskId={task.id} />
      <PageHeader
        title={`Task ${short}`}
        description={
          <>
            <span className="font-mono text-xs break-all text-slate-700" data-testid="task-id">
              {task.id}
            </span>
            <span className="block">
              Agent <span className="font-medium text-slate-800">{task.agent}</span>, enqueued by{" "}
              {task.createdBy}.
            </span>
            {task.traceUrl ? (
              <span className="block">
                <TraceLink href={task.traceUrl} />
              </span>
            ) : null}
          </>
        }
        aside={
          <>
            As of <Timestamp iso={detail.asOf} />
          </>
        }
      />
      <LiveTaskPage
        initial={screen}
        params={{ id: task.id, from: search.data.from }}
        actor={actorOf(viewer)}
        stream={taskStream(task.id)}
      />
    </>
  );
}

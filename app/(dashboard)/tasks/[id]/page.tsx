import type { Metadata } from "next";
import Link from "next/link";
import { notFound } from "next/navigation";
import { InboxNext } from "../../../../components/inbox/inbox-next";
import { TaskReviewPanel } from "../../../../components/review/task-review-panel";
import { EffectsList } from "../../../../components/tasks/effects-list";
import { JsonView } from "../../../../components/tasks/json-view";
import { OnThisPage } from "../../../../components/tasks/on-this-page";
import { ReplayPreviewView } from "../../../../components/tasks/replay-preview";
import { StepJournal } from "../../../../components/tasks/step-journal";
import { TaskApprovals } from "../../../../components/tasks/task-approvals";
import { TaskCallout } from "../../../../components/tasks/task-callout";
import { TaskFacts } from "../../../../components/tasks/task-facts";
import { TaskLedger } from "../../../../components/tasks/task-ledger";
import { TaskOutcome } from "../../../../components/tasks/task-outcome";
import { Card } from "../../../../components/ui/card";
import { EmptyState } from "../../../../components/ui/empty-state";
import { InvalidAddressNotice, Notice } from "../../../../components/ui/notice";
import { PageHeader } from "../../../../components/ui/page-header";
import { Timestamp } from "../../../../components/ui/timestamp";
import { pageViewer } from "../../../../lib/auth/page";
import { actorOf } from "../../../../lib/domain/access";
import { getDb, getPool } from "../../../../lib/server/db";
import { taskStream } from "../../../../lib/server/ledger/append-ledger";
import { readReviewState } from "../../../../lib/server/queries/get-review-state";
import { getTaskDetail, taskIdSchema } from "../../../../lib/server/queries/get-task-detail";
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
      <>
        <Breadcrumb current={parsed.data.slice(0, 8)} />
        <PageHeader title={`Task ${parsed.data.slice(0, 8)}`} />
        <InvalidAddressNotice
          title="This task address is not valid."
          errors={search.errors}
          resetHref={`/tasks/${parsed.data}`}
          resetLabel="Show the whole task"
        />
      </>
    );
  }

  const detail = await getTaskDetail(getDb(), viewer, parsed.data, search.data);
  if (!detail) notFound();
  const { task } = detail;
  const short = task.id.slice(0, 8);
  const pendingApproval = detail.approvals.find((a) => a.status === "pending");
  const review = await readReviewState(getPool(), viewer, task.id);
  const outcomeTitle =
    task.result !== null ? "Result" : task.lastError !== null ? "Last error" : "Outcome";

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
          </>
        }
        aside={
          <>
            As of <Timestamp iso={detail.asOf} />
          </>
        }
      />
      <div className="space-y-6">
        <TaskCallout task={task} pendingApproval={pendingApproval} />

        {review ? (
          <Card
            id="review"
            title="Review"
            description="What you can do about this task. Each action applies to the version shown here; if someone acted first, you are told who and what."
          >
            <TaskReviewPanel
              task={{ id: task.id, status: task.status, version: task.version }}
              state={review}
              actor={actorOf(viewer)}
              pendingTool={pendingApproval?.tool ?? null}
              unknownEffects={detail.effects
                .filter((e) => e.state === "outcome_unknown")
                .map((e) => ({ key: e.key, tool: e.tool, stepSeq: e.stepSeq }))}
            />
          </Card>
        ) : null}

        <Card id="summary" title="Summary">
          <TaskFacts task={task} />
        </Card>

        <OnThisPage detail={detail} />

        <div className="grid gap-6 lg:grid-cols-2">
          <Card
            id="input"
            title="Input"
            description="As enqueued. The agent checks it against its schema."
          >
            <JsonView value={task.input} label="Input of the task" tall />
          </Card>
          <Card
            id="outcome"
            title={outcomeTitle}
            description={
              task.result !== null
                ? "What the agent returned."
                : task.lastError !== null
                  ? `From attempt ${task.attempts}.`
                  : undefined
            }
          >
            <TaskOutcome detail={detail} />
          </Card>
        </div>

        <Card
          id="steps"
          title="Step journal"
          description="Each durable operation in call order. A later attempt returns these results instead of running them again."
        >
          {detail.steps.length === 0 ? (
            <EmptyState title="No steps journaled">
              Steps appear as the agent runs: model calls, tool calls, computations and sleeps.
            </EmptyState>
          ) : (
            <StepJournal steps={detail.steps} />
          )}
        </Card>

        <Card
          id="effects"
          title="Effects"
          description="Side effects, one per idempotency key derived from intent: the same key never acts twice."
        >
          {detail.effects.length === 0 ? (
            <EmptyState title="No side effects">
              When the agent calls a tool, the effect is recorded here with its key, arguments and
              result before and after it acts.
            </EmptyState>
          ) : (
            <EffectsList effects={detail.effects} />
          )}
        </Card>

        <Card
          id="approvals"
          title="Approvals"
          description="A gated effect waits for a person's yes, bound to its key and the fingerprint of its exact arguments."
          action={
            pendingApproval ? (
              <Link href="/approvals" className={linkClass}>
                All pending approvals
              </Link>
            ) : null
          }
        >
          {detail.approvals.length === 0 ? (
            <EmptyState title="No approvals requested">
              None of this task's effects has needed a person's yes.
            </EmptyState>
          ) : (
            <TaskApprovals approvals={detail.approvals} />
          )}
        </Card>

        {detail.replay ? (
          <Card
            id="replay"
            title={`Replay preview from step ${detail.replay.fromStep}`}
            description="What a reviewer would confirm: which effects would be deduplicated and which would act."
          >
            <ReplayPreviewView
              preview={detail.replay}
              supersedesApproval={pendingApproval !== undefined}
            />
          </Card>
        ) : null}

        <Card
          id="ledger"
          title="Ledger"
          description={
            <>
              Every entry of the stream <code className="font-mono">{taskStream(task.id)}</code>,
              oldest first. Entries are append-only and hash-chained.
            </>
          }
        >
          <TaskLedger detail={detail} />
        </Card>
      </div>
    </>
  );
}

"use client";
// The task page below its header, live: the server render seeds it, then it re-reads
// GET /api/screens/task while the tab is visible (and at once after a review action), so the
// status, steps, effects and ledger follow the worker. Sections and dialogs keep their React
// identity across refreshes, so an open dialog, the scroll and typed text stay put.
import Link from "next/link";
import type { TaskScreenDto } from "../../lib/server/queries/get-task-screen";
import { LiveStatus } from "../live/live-status";
import { type ScreenParams, useLiveQuery } from "../live/use-live-query";
import { TaskReviewPanel } from "../review/task-review-panel";
import { ArchivedNotice } from "../tasks/archived-notice";
import { EffectsList } from "../tasks/effects-list";
import { InputHistory, inputDescription } from "../tasks/input-history";
import { OnThisPage } from "../tasks/on-this-page";
import { PayloadMismatches } from "../tasks/payload-mismatch";
import { ReplayPreviewView } from "../tasks/replay-preview";
import { SendEventForm } from "../tasks/send-event-form";
import { StepJournal } from "../tasks/step-journal";
import { TaskApprovals } from "../tasks/task-approvals";
import { TaskAttempts } from "../tasks/task-attempts";
import { TaskCallout } from "../tasks/task-callout";
import { TaskFacts } from "../tasks/task-facts";
import { openChildren, TaskFamily } from "../tasks/task-family";
import { TaskLedger } from "../tasks/task-ledger";
import { TaskOutcome } from "../tasks/task-outcome";
import { TaskTimeline } from "../tasks/task-timeline";
import { sendableWait, TaskWaits } from "../tasks/task-waits";
import { Card } from "../ui/card";
import { EmptyState } from "../ui/empty-state";

const linkClass = "font-medium text-sky-800 underline-offset-2 hover:underline";

export function LiveTaskPage({
  initial,
  params,
  actor,
  stream,
}: {
  initial: TaskScreenDto;
  params: ScreenParams;
  /** The viewer as the ledger names them. */
  actor: string;
  /** The task's ledger stream name. */
  stream: string;
}) {
  const live = useLiveQuery<TaskScreenDto>({ screen: "task", params, initialData: initial });
  const { detail, review } = live.data;
  const { task } = detail;
  const pendingApproval = detail.approvals.find((a) => a.status === "pending");
  const corrected = detail.inputHistory.corrections.length > 0;
  const sendable = sendableWait({ ...live.data.waits, taskStatus: task.status });
  const outcomeTitle =
    task.result !== null ? "Result" : task.lastError !== null ? "Last error" : "Outcome";
  return (
    <div className="space-y-6">
      <LiveStatus
        updatedAt={live.dataUpdatedAt}
        fetching={live.isFetching}
        error={live.error}
        onRefresh={() => void live.refetch()}
      />
      <TaskCallout
        task={task}
        pendingApproval={pendingApproval}
        rejection={detail.rejection}
        joining={
          detail.steps.some((s) => s.kind === "join" && s.status === "started")
            ? openChildren(detail.family)
            : null
        }
      />

      {live.data.waits.waits.length > 0 ? (
        <Card
          id="events"
          title="Events"
          description="What the task waits for (ctx.waitForEvent): an event whose payload contains the match wakes it; the deadline times the wait out."
        >
          <TaskWaits waits={live.data.waits.waits}>
            {sendable ? <SendEventForm name={sendable.name} match={sendable.match} /> : null}
          </TaskWaits>
        </Card>
      ) : null}

      {review ? (
        <Card
          id="review"
          title="Review"
          description="What you can do about this task. Each action applies to the version shown here; if someone acted first, you are told who and what."
        >
          <TaskReviewPanel
            task={{ id: task.id, status: task.status, version: task.version }}
            state={review}
            actor={actor}
            pendingTool={pendingApproval?.tool ?? null}
            unknownEffects={detail.effects
              .filter((e) => e.state === "outcome_unknown")
              .map((e) => ({ key: e.key, tool: e.tool, stepSeq: e.stepSeq, refs: e.refs }))}
            input={task.input}
            steps={detail.steps.map((s) => ({ seq: s.seq, kind: s.kind, name: s.name }))}
            openChildren={openChildren(detail.family)}
          />
        </Card>
      ) : null}

      {detail.payloadMismatches.length > 0 ? (
        <Card
          id="payload-mismatch"
          title="Payload mismatch"
          description="The same intent, so the same key, asked for with other arguments than the first time. Both payloads, side by side."
        >
          <PayloadMismatches mismatches={detail.payloadMismatches} />
        </Card>
      ) : null}

      <Card id="summary" title="Summary">
        {task.archived ? (
          <div className="mb-4">
            <ArchivedNotice archived={task.archived} />
          </div>
        ) : null}
        <TaskFacts task={task} />
      </Card>

      <OnThisPage detail={detail} timeline={live.data.timeline !== null} />

      <div className="grid gap-6 lg:grid-cols-2">
        {/* A corrected input's history needs the width of the page for its before → after. */}
        <div className={corrected ? "min-w-0 lg:col-span-2" : "min-w-0"}>
          <Card id="input" title="Input" description={inputDescription(detail.inputHistory)}>
            <InputHistory
              history={detail.inputHistory}
              current={task.input}
              payloadsHidden={detail.payloadsHidden}
            />
          </Card>
        </div>
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

      {detail.family.parent !== null || detail.family.childCount > 0 ? (
        <Card
          id="family"
          title={detail.family.childCount > 0 ? "Child tasks" : "Parent task"}
          description="Tasks spawned with ctx.spawn: one per intent, however often the parent is retried or replayed. Each child is retried, dead-lettered and reviewed on its own page; cancelling or rejecting the parent leaves its children as they are."
        >
          <TaskFamily family={detail.family} />
        </Card>
      ) : null}

      {detail.attempts.length > 0 ? (
        <Card
          id="attempts"
          title="Attempts"
          description="Each attempt with the version of the agent's code that ran it. A retry after a deploy may run other code than the attempt before."
        >
          <TaskAttempts attempts={detail.attempts} />
        </Card>
      ) : null}

      {live.data.timeline ? (
        <Card
          id="timeline"
          title="Timeline"
          description="Where the task's time went: waiting to be claimed, each attempt's run with its tool and model calls, and the waits between, from its ledger."
        >
          <TaskTimeline timeline={live.data.timeline} />
        </Card>
      ) : null}

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
          <EffectsList effects={detail.effects} sources={live.data.toolSources} />
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
            Every entry of the stream <code className="font-mono">{stream}</code>, oldest first.
            Entries are append-only and hash-chained.
          </>
        }
      >
        <TaskLedger detail={detail} pageSize={live.data.timelinePage} />
      </Card>
    </div>
  );
}

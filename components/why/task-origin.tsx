// "Where did it come from?": the task the effect belongs to, who enqueued it and its input.
import Link from "next/link";
import type { WhyEffect } from "../../lib/server/queries/why";
import { ArchivedNotice } from "../tasks/archived-notice";
import { taskHref } from "../tasks/task-link";
import { Badge } from "../ui/badge";
import { DEAD_REASON_LABEL, TASK_STATUS_LABEL, TASK_STATUS_TONE } from "../ui/labels";
import { Timestamp } from "../ui/timestamp";
import { Chapter, Fact, Facts, Payload } from "./story-kit";

const linkClass = "font-medium text-sky-800 underline-offset-2 hover:underline";

export function TaskOrigin({ why, idBase }: { why: WhyEffect; idBase: string }) {
  const { task, effect } = why;
  return (
    <Chapter id={`${idBase}-task`} title="The task behind it">
      <p>
        Task{" "}
        <Link
          href={taskHref(task.id)}
          prefetch={false}
          className={`${linkClass} font-mono text-xs break-all`}
          data-testid="why-task-link"
        >
          {task.id}
        </Link>{" "}
        of agent <span className="font-medium">{task.agent}</span>, enqueued by{" "}
        <span className="font-mono text-xs break-all">{task.enqueuedBy}</span> at{" "}
        <Timestamp iso={task.enqueuedAt} />.
      </p>
      {task.archived ? <ArchivedNotice archived={task.archived} /> : null}
      <Facts>
        <Fact term="Status now">
          <span className="flex flex-wrap items-center gap-2">
            <Badge tone={TASK_STATUS_TONE[task.status]}>{TASK_STATUS_LABEL[task.status]}</Badge>
            {task.deadReason ? <span>{DEAD_REASON_LABEL[task.deadReason]}</span> : null}
          </span>
        </Fact>
        <Fact term="Attempts so far">{task.attempts}</Fact>
        {task.enqueueKey ? (
          <Fact term="Enqueue key">
            <span className="font-mono text-xs break-all">{task.enqueueKey}</span>
          </Fact>
        ) : null}
      </Facts>
      <Payload
        title="Input, as enqueued"
        value={task.input}
        label={`Input of task ${task.id}`}
        empty="No input."
      />
      <p className="flex flex-wrap gap-x-4 gap-y-1">
        <Link
          href={`${taskHref(task.id)}#effect-${effect.key}`}
          prefetch={false}
          className={linkClass}
        >
          This effect on the task page
        </Link>
        <Link href={`/why?taskId=${task.id}`} prefetch={false} className={linkClass}>
          Why? for every effect of this task
        </Link>
      </p>
    </Chapter>
  );
}

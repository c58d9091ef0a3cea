"use client";
// A bulk action's frozen set as the dead-letter list shows tasks (the same table), each with its
// own preview on demand: "Preview" reads, for that task alone, what the bulk would do to it now
// (effects that act or deduplicate, money and how much), under its row.
import { useState } from "react";
import { previewBulkMemberAction } from "../../lib/actions/bulk-member-preview";
import type { BulkMemberPreviewDto } from "../../lib/server/queries/get-bulk-action-member";
import type { DeadTaskDto } from "../../lib/server/queries/list-dead-letter-tasks";
import { ReviewPreviewList } from "../review/review-preview-list";
import { secondaryButton } from "../ui/control-styles";
import { MoneyAmounts } from "./bulk-preview-summary";
import { DeadTaskTable } from "./dead-task-table";

type Opened = { loading: true } | { loading: false; error: string } | BulkMemberPreviewDto;

function MemberPreview({ opened }: { opened: Opened }) {
  if ("loading" in opened) {
    return opened.loading ? (
      <p role="status" className="text-sm">
        Reading what the bulk action would do to this task…
      </p>
    ) : (
      <p role="alert" className="text-sm">
        {opened.error}
      </p>
    );
  }
  if (!opened.preview) return <p className="text-sm text-slate-700">{opened.note}</p>;
  const money = opened.preview.amounts;
  return (
    <div className="space-y-2" data-testid="member-preview">
      {money.totals.length > 0 || money.unknown > 0 ? (
        <div className="text-sm">
          <p className="font-medium">Money this task would move</p>
          <MoneyAmounts amounts={money} />
        </div>
      ) : null}
      <ReviewPreviewList preview={opened.preview} />
    </div>
  );
}

export function BulkMembers({
  bulkId,
  tasks,
  caption,
}: {
  bulkId: string;
  tasks: DeadTaskDto[];
  caption: string;
}) {
  const [opened, setOpened] = useState<Record<string, Opened>>({});
  const toggle = (taskId: string) => {
    if (opened[taskId]) {
      setOpened(({ [taskId]: _, ...rest }) => rest);
      return;
    }
    setOpened((o) => ({ ...o, [taskId]: { loading: true } }));
    void previewBulkMemberAction({ bulkId, taskId }).then(
      (r) =>
        setOpened((o) =>
          o[taskId] ? { ...o, [taskId]: r.ok ? r.value : { loading: false, error: r.error } } : o,
        ),
      (e: unknown) =>
        setOpened((o) => ({
          ...o,
          [taskId]: {
            loading: false,
            error: e instanceof Error ? e.message : "the preview failed",
          },
        })),
    );
  };
  return (
    <DeadTaskTable
      tasks={tasks}
      caption={caption}
      extra={{
        header: "Its preview",
        cell: (t) => (
          <button
            type="button"
            className={secondaryButton}
            aria-expanded={opened[t.id] !== undefined}
            aria-label={`${opened[t.id] ? "Hide" : "Show"} what this bulk action would do to task ${t.id.slice(0, 8)}`}
            onClick={() => toggle(t.id)}
            data-testid="member-preview-toggle"
          >
            {opened[t.id] ? "Hide" : "Preview"}
          </button>
        ),
      }}
      detail={(t) => {
        const o = opened[t.id];
        return o ? <MemberPreview opened={o} /> : null;
      }}
    />
  );
}

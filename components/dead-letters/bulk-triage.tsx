"use client";
// Bulk triage of the filtered list: tick rows (or every task matching the filter), choose an
// action, read the confirmation dialog's count and aggregated preview, give the action's own
// fields, confirm. The dialog's key (a UUID made when it opens) makes one bulk action however
// often the button is pressed; its asOf (the db clock when it opened) keeps later dead letters
// out of the set. The selection is only ever rows the list shows under its filter. Afterwards
// the progress and each task's outcome show here, live.
import { type ReactNode, useEffect, useState } from "react";
import { previewBulkActionAction } from "../../lib/actions/bulk-preview";
import { requestBulkActionAction } from "../../lib/actions/bulk-request";
import type { BulkAction } from "../../lib/domain/bulk-actions";
import { pendingCounts, tasksText } from "../../lib/domain/bulk-counts";
import type { BulkActionDto } from "../../lib/server/queries/get-bulk-action";
import type { DeadTaskDto } from "../../lib/server/queries/list-dead-letter-tasks";
import type { BulkPreviewDto } from "../../lib/server/queries/preview-bulk-action";
import type { BulkSelection } from "../../lib/server/review/bulk-set";
import type { DeadLetterFilter } from "../../lib/server/review/dead-letter-filter";
import { filterKey } from "../filters/filter-values";
import {
  dangerButton,
  inputClass,
  primaryButton,
  ReviewDialog,
  ReviewFeedback,
  secondaryButton,
  useReview,
} from "../review/review-kit";
import { BULK_ACTION_LABEL } from "../ui/labels";
import { Timestamp } from "../ui/timestamp";
import { BulkPreviewSummary } from "./bulk-preview-summary";
import { BulkProgress } from "./bulk-progress";
import { DeadTaskTable } from "./dead-task-table";

export type BulkAllowed = Record<BulkAction, boolean>;

/** a / r / p open these dialogs from the keyboard; cancel has no key. */
const SHORTCUT: Partial<Record<BulkAction, string>> = { resume: "a", reject: "r", replay: "p" };

function startedDto(
  id: string,
  action: BulkAction,
  status: BulkActionDto["status"],
  memberCount: number,
  me: string,
): BulkActionDto {
  return {
    id,
    action,
    params: {},
    status,
    twoPerson: status === "awaiting_second",
    memberCount,
    requestedBy: me,
    confirmedBy: null,
    createdAt: new Date().toISOString(),
    asOf: new Date().toISOString(),
    confirmedAt: null,
    finishedAt: null,
    endedBy: null,
    endReason: null,
    // The one who froze it may withdraw it while it waits; the live read says so from the table.
    mayWithdraw: status === "awaiting_second",
    // The one who froze it never confirms it.
    mayConfirm: false,
    counts: pendingCounts(memberCount),
    members: [],
  };
}

function Confirm({
  action,
  selection,
  me,
  close,
  onStarted,
}: {
  action: BulkAction;
  selection: BulkSelection;
  me: string;
  close: () => void;
  onStarted: (bulk: BulkActionDto) => void;
}) {
  // Made once per opening: a double click or a retry sends the same key; the selection and
  // the db-clock instant of the first preview are this opening's, whatever re-renders later.
  const [bulkId] = useState(() => crypto.randomUUID());
  const [frozen] = useState(selection);
  const [openedAt, setOpenedAt] = useState<string | null>(null);
  const [preview, setPreview] = useState<BulkPreviewDto | null>(null);
  const [loadError, setLoadError] = useState<string | null>(null);
  const [reason, setReason] = useState("");
  const [stepName, setStepName] = useState<string>("");
  const review = useReview();

  useEffect(() => {
    let live = true;
    void previewBulkActionAction({
      action,
      selection: frozen,
      stepName: action === "replay" && stepName !== "" ? stepName : null,
    }).then(
      (r) => {
        if (!live) return;
        if (r.ok) {
          setPreview(r.value);
          setOpenedAt((at) => at ?? r.value.asOf);
        } else setLoadError(r.error);
      },
      (e: unknown) => live && setLoadError(e instanceof Error ? e.message : "the preview failed"),
    );
    return () => {
      live = false;
    };
  }, [action, frozen, stepName]);

  if (loadError) return <p role="alert">{loadError}</p>;
  if (!preview) return <p role="status">Reading the selected tasks and what this would do…</p>;
  const p = preview.preview;
  return (
    <form
      className="space-y-4"
      onSubmit={(e) => {
        e.preventDefault();
        review.run(
          requestBulkActionAction,
          {
            bulkId,
            action,
            selection: frozen,
            asOf: openedAt ?? preview.asOf,
            ...(action === "reject" || action === "cancel" || reason.trim() !== ""
              ? { reason }
              : {}),
            ...(action === "replay" ? { stepName: stepName === "" ? null : stepName } : {}),
          },
          (v) =>
            v.status === "awaiting_second"
              ? `Frozen ${tasksText(v.memberCount)}; a second, different reviewer must confirm.`
              : `Frozen ${tasksText(v.memberCount)}; acting on them now.`,
          (v) => {
            onStarted(startedDto(v.id, action, v.status, v.memberCount, me));
            close();
          },
        );
      }}
    >
      <p className="text-sm" data-testid="bulk-count">
        <strong>{preview.count.toLocaleString("en-US")}</strong> dead{" "}
        {preview.count === 1 ? "task" : "tasks"}, as of <Timestamp iso={openedAt ?? preview.asOf} />
        . Tasks that dead-letter after this moment are not included.
      </p>
      {preview.tooMany ? (
        <p role="alert">Too many tasks for one bulk action: narrow the filter.</p>
      ) : null}
      {action === "replay" ? (
        <div>
          <label htmlFor="bulk-step" className="block text-sm font-medium">
            Replay from the step named
          </label>
          <select
            id="bulk-step"
            className={inputClass}
            value={stepName}
            onChange={(e) => setStepName(e.target.value)}
          >
            <option value="">The start (step 1)</option>
            {preview.stepNames.map((n) => (
              <option key={n} value={n}>
                {n}
              </option>
            ))}
          </select>
        </div>
      ) : null}
      {p ? <BulkPreviewSummary preview={p} /> : null}
      {action === "reject" || action === "cancel" || p?.twoPerson ? (
        <div>
          <label htmlFor="bulk-reason" className="block text-sm font-medium">
            {action === "reject" || action === "cancel"
              ? `Reason${action === "reject" ? " (required)" : ""}`
              : "Why (optional: the second reviewer reads it before confirming)"}
          </label>
          <textarea
            id="bulk-reason"
            className={inputClass}
            required={action === "reject"}
            value={reason}
            onChange={(e) => setReason(e.target.value)}
          />
        </div>
      ) : null}
      <ReviewFeedback feedback={review.feedback} />
      <div className="flex gap-2">
        <button
          type="submit"
          className={action === "replay" || action === "resume" ? primaryButton : dangerButton}
          disabled={review.pending || preview.count === 0 || preview.tooMany}
          data-testid="bulk-confirm"
        >
          {BULK_ACTION_LABEL[action]} {tasksText(preview.count)}
        </button>
        <button type="button" className={secondaryButton} onClick={close}>
          Keep them
        </button>
      </div>
    </form>
  );
}

/** `picked` without the rows `tasks` no longer has (the same map when it has them all). */
function onlyShown(picked: Map<string, number>, tasks: DeadTaskDto[]): Map<string, number> {
  const ids = new Set(tasks.map((t) => t.id));
  if ([...picked.keys()].every((id) => ids.has(id))) return picked;
  return new Map([...picked].filter(([id]) => ids.has(id)));
}

export function BulkTriage({
  tasks,
  matching,
  filter,
  allowed,
  me,
  caption,
  empty,
  selectAll = false,
}: {
  tasks: DeadTaskDto[];
  matching: number;
  filter: DeadLetterFilter;
  /**
   * Open with every task matching the filter selected (the address asked for it: the inbox's
   * "select all" of an error group), and again whenever the filter changes to one that asks.
   */
  selectAll?: boolean;
  allowed: BulkAllowed;
  me: string;
  caption: string;
  /** Shown instead of the table when nothing matches; the bulk progress above stays. */
  empty: ReactNode;
}) {
  const [picked, setPicked] = useState<Map<string, number>>(() => new Map());
  const [allMatching, setAllMatching] = useState(selectAll);
  const [started, setStarted] = useState<BulkActionDto[]>([]);
  // The selection is what this list shows: another filter starts it afresh, and a ticked row
  // that leaves the list (another page, or the live read no longer has it because someone else
  // acted on it) leaves the selection, so it cannot be acted on unseen or come back ticked.
  // Adjusted while rendering, so no frame counts a row that is gone.
  const key = filterKey(filter);
  const [shown, setShown] = useState({ key, tasks });
  if (shown.key !== key || shown.tasks !== tasks) {
    setShown({ key, tasks });
    if (shown.key !== key) {
      setPicked(new Map());
      setAllMatching(selectAll);
    } else {
      setPicked((m) => onlyShown(m, tasks));
    }
  }
  const any = (Object.values(allowed) as boolean[]).some(Boolean);
  const count = allMatching ? matching : picked.size;
  const selection: BulkSelection = allMatching
    ? { kind: "filter", filter }
    : { kind: "ids", tasks: [...picked].map(([taskId, version]) => ({ taskId, version })) };
  const allOnPage = tasks.length > 0 && tasks.every((t) => picked.has(t.id));

  return (
    <div className="space-y-3">
      {any && tasks.length > 0 ? (
        <div
          role="toolbar"
          aria-label="Act on the selected dead tasks"
          className="flex flex-wrap items-center gap-2"
        >
          <button
            type="button"
            className={secondaryButton}
            aria-pressed={allMatching}
            onClick={() => setAllMatching((v) => !v)}
            data-testid="select-all-matching"
          >
            {allMatching
              ? `All ${matching.toLocaleString("en-US")} matching selected`
              : `Select all ${matching.toLocaleString("en-US")} matching this filter`}
          </button>
          <span className="text-sm text-slate-700" data-testid="selected-count">
            {count.toLocaleString("en-US")} selected
          </span>
          {(Object.keys(BULK_ACTION_LABEL) as BulkAction[])
            .filter((a) => allowed[a])
            .map((a) => (
              <ReviewDialog
                key={a}
                label={`${BULK_ACTION_LABEL[a]}…`}
                title={`${BULK_ACTION_LABEL[a]} ${count.toLocaleString("en-US")} dead ${count === 1 ? "task" : "tasks"}`}
                disabled={count === 0}
                testId={`bulk-${a}`}
                shortcut={SHORTCUT[a]}
              >
                {(close) => (
                  <Confirm
                    action={a}
                    selection={selection}
                    me={me}
                    close={close}
                    onStarted={(b) => {
                      setStarted((s) => [b, ...s]);
                      setPicked(new Map());
                      setAllMatching(false);
                    }}
                  />
                )}
              </ReviewDialog>
            ))}
        </div>
      ) : null}
      {started.length > 0 ? (
        <div className="space-y-2" data-testid="started-bulks">
          {started.map((b) => (
            <BulkProgress key={b.id} initial={b} me={me} />
          ))}
        </div>
      ) : null}
      {tasks.length === 0 ? (
        empty
      ) : (
        <DeadTaskTable
          tasks={tasks}
          caption={caption}
          selection={
            any
              ? {
                  has: (id) => allMatching || picked.has(id),
                  toggle: (t) => {
                    setAllMatching(false);
                    setPicked((m) => {
                      const next = new Map(m);
                      if (next.has(t.id)) next.delete(t.id);
                      else next.set(t.id, t.version);
                      return next;
                    });
                  },
                  allOnPage: allMatching || allOnPage,
                  togglePage: () => {
                    setAllMatching(false);
                    setPicked((m) => {
                      const next = new Map(m);
                      for (const t of tasks) {
                        if (allOnPage) next.delete(t.id);
                        else next.set(t.id, t.version);
                      }
                      return next;
                    });
                  },
                }
              : undefined
          }
        />
      )}
    </div>
  );
}

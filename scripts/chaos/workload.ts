// The work the harness gives the workers: a retry policy generous enough that crashes do not
// exhaust tasks, a realistic mix of the two example agents, and a reviewer who approves the
// refunds that park for approval, so the run can finish.
import type pg from "pg";
import { withTransaction } from "../../db/client";
import { operator } from "../../lib/domain/access";
import type { PartialRetryPolicy } from "../../lib/domain/retry-policy";
import { approveTask } from "../../lib/server/commands/approve-task";
import { enqueueTask } from "../../lib/server/commands/enqueue-task";
import { setPolicy } from "../../lib/server/commands/set-policy";
import { lookUpInvoice } from "../../worker/agents/invoice-reminder";
import type { Dice } from "../../worker/demo/fault-dice";

export const HARNESS_ACTOR = "chaos-harness";
export const REVIEWER = "chaos-reviewer@agent-ledger.local";
/** Money tools (refunds) need a second, different reviewer after the first. */
export const SECOND_REVIEWER = "chaos-second-reviewer@agent-ledger.local";
/** Passed to the workers too, so both sides agree which refunds park. */
export const APPROVAL_THRESHOLD_CENTS = 20_000;

/** Crashes count as failed attempts (worker.lost): 50 leaves room for many per task. */
export const CHAOS_POLICY: PartialRetryPolicy = {
  maxAttempts: 50,
  backoffInitialMs: 20,
  backoffFactor: 2,
  backoffMaxMs: 200,
  attemptTimeoutMs: 30_000,
};

/**
 * The example agents bring their own policies in code (5 and 6 attempts), which win over the
 * global row; admin rows per agent win over the code, so the harness sets all three.
 */
export async function installPolicies(pool: pg.Pool): Promise<void> {
  for (const scope of ["global", "agent:invoice-reminder", "agent:refund"]) {
    const r = await setPolicy(pool, operator(HARNESS_ACTOR), {
      scope,
      policy: CHAOS_POLICY,
      version: null,
    });
    if (!r.ok) throw new Error(`could not set the ${scope} policy: ${r.message}`);
  }
}

export type PlannedTask =
  | { agent: "invoice-reminder"; input: { invoiceId: string; customerEmail: string } }
  | {
      agent: "refund";
      input: { orderId: string; amountCents: number; currency: "usd"; reason: string };
    };

const REASONS = [
  "damaged in transit",
  "duplicate charge",
  "suspected fraud",
  "customer changed their mind",
];

function shuffle<T>(items: T[], dice: Dice): T[] {
  for (let i = items.length - 1; i > 0; i--) {
    const j = Math.floor(dice() * (i + 1));
    [items[i], items[j]] = [items[j] as T, items[i] as T];
  }
  return items;
}

const between = (dice: Dice, lo: number, hi: number) => lo + Math.floor(dice() * (hi - lo + 1));

/**
 * About 55 % invoice reminders (a tenth of them for invoices that are not overdue, so the model
 * sends nothing) and 45 % refunds (a twentieth above the approval threshold), shuffled.
 */
export function planTasks(n: number, dice: Dice, runId: string): PlannedTask[] {
  const invoices = Math.round(n * 0.55);
  const quiet = Math.round(invoices * 0.1);
  const refunds = n - invoices;
  const large = refunds === 0 ? 0 : Math.max(refunds >= 5 ? 1 : 0, Math.round(refunds * 0.05));
  const kinds = shuffle(
    [
      ...Array<string>(invoices - quiet).fill("overdue"),
      ...Array<string>(quiet).fill("quiet"),
      ...Array<string>(refunds - large).fill("refund"),
      ...Array<string>(large).fill("large"),
    ],
    dice,
  );
  return kinds.map((kind, i): PlannedTask => {
    if (kind === "overdue" || kind === "quiet") {
      // The demo's invoice data is derived from the id: pick ids with the wanted due state.
      let invoiceId = `INV-${runId}-${i}`;
      for (let j = 0; lookUpInvoice(invoiceId).daysOverdue > 0 !== (kind === "overdue"); j++) {
        invoiceId = `INV-${runId}-${i}-${j}`;
      }
      return {
        agent: "invoice-reminder",
        input: { invoiceId, customerEmail: `customer${i}@example.com` },
      };
    }
    return {
      agent: "refund",
      input: {
        orderId: `ord_${runId}_${i}`,
        amountCents:
          kind === "large"
            ? between(dice, APPROVAL_THRESHOLD_CENTS + 1, 90_000)
            : between(dice, 100, APPROVAL_THRESHOLD_CENTS),
        currency: "usd",
        reason: REASONS[Math.floor(dice() * REASONS.length)] ?? "customer request",
      },
    };
  });
}

async function enqueue(pool: pg.Pool, tasks: readonly PlannedTask[]): Promise<void> {
  for (let i = 0; i < tasks.length; i += 50) {
    await withTransaction(pool, async (client) => {
      for (const task of tasks.slice(i, i + 50)) {
        const result = await enqueueTask(client, operator(HARNESS_ACTOR), {
          agent: task.agent,
          input: task.input,
          unpublished: "enqueue",
        });
        if (!result.ok) throw new Error(`enqueue ${task.agent}: ${result.message}`);
      }
    });
  }
}

export type Feed = {
  enqueued: () => number;
  /** Enqueue the plan up to this share (0..1) of it; calls are serialized. */
  releaseUpTo: (share: number) => void;
  /** Enqueue `n` more (unless a release is still on its way); false when the plan is all out. */
  releaseMore: (n: number) => boolean;
  /** Resolves once everything released so far is in the database. */
  flush: () => Promise<void>;
};

/**
 * Tasks arrive over the run, not all at once: `initial` up front, the rest as the caller
 * releases them (the harness does with every kill), so its kills keep landing on work in
 * progress instead of on workers that already finished everything.
 */
export async function startFeed(
  pool: pg.Pool,
  plan: readonly PlannedTask[],
  initial: number,
  onError: (err: unknown) => void,
): Promise<Feed> {
  let released = Math.min(plan.length, initial);
  await enqueue(pool, plan.slice(0, released));
  let chain = Promise.resolve();
  let pending = 0;
  const releaseTo = (target: number) => {
    const upTo = Math.min(plan.length, target);
    if (upTo <= released) return false;
    const batch = plan.slice(released, upTo);
    released = upTo;
    pending++;
    chain = chain
      .then(() => enqueue(pool, batch))
      .catch(onError)
      .finally(() => {
        pending--;
      });
    return true;
  };
  return {
    enqueued: () => released,
    releaseUpTo: (share) => releaseTo(Math.ceil(plan.length * share)),
    // While a release is on its way the workers are about to have work: wait for it.
    releaseMore: (n) => pending > 0 || releaseTo(released + n),
    flush: () => chain,
  };
}

export type Approver = { approved: () => number; stop: () => Promise<void> };

/**
 * Reviewers who approve every parked task a moment after it parks: the first approves, and
 * where the two-person rule holds the approval open, a second, different reviewer confirms.
 */
export function startApprover(
  pool: pg.Pool,
  dice: Dice,
  onError: (err: unknown) => void,
): Approver {
  let approved = 0;
  let stopping = false;
  const loop = (async () => {
    while (!stopping) {
      try {
        const { rows } = await pool.query<{ id: string; version: number; first: boolean }>(
          `select t.id, t.version, coalesce(bool_or(a.first_approved_by is not null), false) as first
             from tasks t left join approvals a on a.task_id = t.id and a.status = 'pending'
            where t.status = 'awaiting_approval'
            group by t.id order by min(t.status_changed_at)`,
        );
        for (const row of rows) {
          if (stopping) break;
          await new Promise((r) => setTimeout(r, between(dice, 0, 100)));
          const r = await approveTask(pool, operator(row.first ? SECOND_REVIEWER : REVIEWER), {
            taskId: row.id,
            version: row.version,
            note: "approved by the chaos harness",
          });
          // A conflict means the task moved on since we read it; the next round sees it anew.
          if (r.ok) approved++;
        }
      } catch (err) {
        onError(err);
      }
      await new Promise((r) => setTimeout(r, 200));
    }
  })();
  return {
    approved: () => approved,
    stop: async () => {
      stopping = true;
      await loop;
    },
  };
}

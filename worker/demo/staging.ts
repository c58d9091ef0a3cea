// What `agent-ledger demo outage` and `demo bad-input` stage, decided here and nowhere else:
// the refunds an outage fails and the scoped outages that fail them, and the inputs a producer
// that skipped the schema check might have sent. Pure: the CLI writes and waits.
import { randomBytes } from "node:crypto";
import { lookUpInvoice } from "../agents/invoice-reminder";
import type { PaymentsOutage } from "./payments-schemas";

/**
 * The provider errors an outage spreads its refunds over. 502 and 503 are what the refund tool
 * knows as "not performed" (retried until the limit, never an unknown outcome); each message
 * keeps its own dead-letter group, since fingerprints drop only numbers, ids and quotes.
 */
export const OUTAGE_ERRORS: readonly Pick<PaymentsOutage, "status" | "message">[] = [
  { status: 503, message: "The card network is not responding. Try again later." },
  { status: 502, message: "Bad gateway: upstream reset the connection before answering." },
  { status: 503, message: "Refunds are paused while the acquiring bank recovers." },
  { status: 502, message: "Bad gateway: the payments router returned an invalid response." },
  { status: 503, message: "Service unavailable: the ledger of the provider is read-only." },
  { status: 503, message: "Too many requests to the card network; refunds are shed." },
];

export const STAGE_AGENTS = ["refund", "invoice-reminder"] as const;
export type StageAgent = (typeof STAGE_AGENTS)[number];

/** A short id of one staging run, in its order ids, so its tasks and outages are its own. */
export function stagingRunId(): string {
  return randomBytes(4).toString("hex");
}

const REASONS = ["damaged in transit", "late delivery", "duplicate charge", "wrong size"];

/** A refund amount for the i-th task: varied, and never above the approval threshold. */
function amountCents(i: number, thresholdCents: number): number {
  const max = Math.min(thresholdCents, 20_000);
  const min = Math.min(500, max);
  return min + ((i * 7_919) % (max - min + 1));
}

export type OutagePlan = {
  outages: PaymentsOutage[];
  /** One refund input per task, with the index of the error its payment will get. */
  tasks: { input: Record<string, unknown>; error: number }[];
};

/** `count` refunds spread round-robin over the first `errors` of OUTAGE_ERRORS. */
export function outagePlan(opts: {
  runId: string;
  count: number;
  errors: number;
  approvalThresholdCents: number;
}): OutagePlan {
  const used = OUTAGE_ERRORS.slice(0, opts.errors);
  // The refund agent's payment intent is pi_ + the order id with - as _.
  const orderPrefix = (e: number) => `outage-${opts.runId}-e${e + 1}-`;
  const outages = used.map((error, e) => ({
    paymentIntentPrefix: `pi_${orderPrefix(e).replaceAll("-", "_")}`,
    ...error,
  }));
  const tasks = Array.from({ length: opts.count }, (_, i) => {
    const error = i % used.length;
    return {
      error,
      input: {
        orderId: `${orderPrefix(error)}${i + 1}`,
        amountCents: amountCents(i, opts.approvalThresholdCents),
        currency: "usd",
        reason: REASONS[i % REASONS.length] ?? "late delivery",
      },
    };
  });
  return { outages, tasks };
}

/** One way an input can be wrong, and the field a reviewer corrects. */
export type BadInput = { input: Record<string, unknown>; fix: string };

/** An invoice the demo's invoice book has overdue, so a corrected reminder really sends. */
function overdueInvoice(prefix: string, from: number): string {
  for (let n = from; ; n++)
    if (lookUpInvoice(`${prefix}${n}`).daysOverdue > 0) return `${prefix}${n}`;
}

/** `count` inputs the agent's schema refuses, rotating through kinds of mistakes. */
export function badInputs(agent: StageAgent, runId: string, count: number): BadInput[] {
  return Array.from({ length: count }, (_, i): BadInput => {
    if (agent === "refund") {
      const good = {
        orderId: `bad-${runId}-${i + 1}`,
        amountCents: amountCents(i, 20_000),
        currency: "usd",
        reason: REASONS[i % REASONS.length] ?? "late delivery",
      };
      const mistakes: BadInput[] = [
        { input: { ...good, currency: "US dollars" }, fix: 'currency: "usd"' },
        {
          input: { ...good, amountCents: (good.amountCents / 100).toFixed(2) },
          fix: "amountCents: a number of cents",
        },
        { input: { ...good, amountCents: -good.amountCents }, fix: "amountCents: positive" },
        { input: { ...good, orderId: `bad ${runId} ${i + 1}` }, fix: "orderId: no spaces" },
      ];
      return mistakes[i % mistakes.length] as BadInput;
    }
    const invoiceId = overdueInvoice(`inv_bad_${runId}_`, i * 10);
    const email = `customer${i + 1}@example.com`;
    const mistakes: BadInput[] = [
      {
        input: { invoiceId, customerEmail: email.replace("@", " at ") },
        fix: "customerEmail: an address",
      },
      { input: { invoiceId, email }, fix: "customerEmail: the field's name" },
      {
        input: { invoiceId: Number(i + 1042), customerEmail: email },
        fix: `invoiceId: "${invoiceId}"`,
      },
    ];
    return mistakes[i % mistakes.length] as BadInput;
  });
}

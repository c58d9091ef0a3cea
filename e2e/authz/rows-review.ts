// The authorization matrix's rows for signing in and out, review and bulk triage (matrix.ts).
import { DEMO_SIGN_IN, holdsSession, type MatrixRow } from "./matrix-types";
import { pendingBulk, pendingBulkOf, publishedDeadTask, reconcilableOutcome } from "./row-inputs";

export const REVIEW_ROWS: readonly MatrixRow[] = [
  // Sessions: the way in is public; the way out ends only the caller's own session.
  {
    target: "action:signIn",
    does: "signs in with the right password",
    call: { kind: "action", args: () => [undefined, DEMO_SIGN_IN] },
    public: "redirect:/",
    writes: true,
  },
  {
    target: "action:signInWithSso",
    does: "starts single sign-on (not configured in e2e: back to sign-in)",
    call: { kind: "action", args: () => [{ next: "/" }] },
    public: "redirect:/sign-in",
    writes: false,
  },
  {
    target: "action:signOut",
    does: "signs out",
    call: { kind: "action", args: () => [] },
    public: "redirect:/sign-in",
    writes: holdsSession,
    endsSession: true,
  },

  // Review: the buttons on the task, dead-letter and approval screens.
  {
    target: "action:approveTaskAction",
    does: "approves a parked effect",
    call: { kind: "action", args: async (ctx) => [await ctx.awaitingApprovalTask()] },
    scope: "approvals:decide",
  },
  {
    target: "action:rejectTaskAction",
    does: "rejects a parked effect",
    call: {
      kind: "action",
      args: async (ctx) => [{ ...(await ctx.awaitingApprovalTask()), reason: "not ours" }],
    },
    scope: "approvals:decide",
  },
  {
    target: "action:rejectTaskAction",
    does: "rejects a dead task",
    call: {
      kind: "action",
      args: async (ctx) => [{ ...(await ctx.deadTask()), reason: "not ours" }],
    },
    scope: "approvals:decide",
    alsoNeeds: "deadLetters:review",
  },
  {
    target: "action:resumeTaskAction",
    does: "resumes a dead task",
    call: { kind: "action", args: async (ctx) => [await ctx.deadTask()] },
    scope: "deadLetters:review",
  },
  {
    target: "action:replayTaskAction",
    does: "replays a dead task from step 1",
    call: { kind: "action", args: async (ctx) => [{ ...(await ctx.deadTask()), fromStep: 1 }] },
    scope: "deadLetters:review",
  },
  {
    target: "action:previewReplayAction",
    does: "previews a replay",
    call: {
      kind: "action",
      args: async (ctx) => [{ taskId: (await ctx.deadTask()).taskId, fromStep: 1 }],
    },
    scope: "deadLetters:review",
    readOnly: true,
  },
  // Bulk triage on /dead-letters: the dialog's preview, the freeze, a second reviewer's yes.
  {
    target: "action:previewBulkActionAction",
    does: "previews a bulk replay of chosen dead tasks",
    call: {
      kind: "action",
      args: async (ctx) => [
        {
          action: "replay",
          selection: { kind: "ids", tasks: [await ctx.deadTask()] },
          stepName: null,
        },
      ],
    },
    scope: "deadLetters:review",
    readOnly: true,
  },
  {
    target: "action:requestBulkActionAction",
    does: "freezes a bulk resume of chosen dead tasks",
    call: {
      kind: "action",
      args: async (ctx) => [
        {
          bulkId: crypto.randomUUID(),
          action: "resume",
          selection: { kind: "ids", tasks: [await ctx.deadTask()] },
          asOf: new Date(Date.now() - 60_000).toISOString(),
        },
      ],
    },
    scope: "deadLetters:review",
  },
  {
    target: "action:confirmBulkActionAction",
    does: "confirms another reviewer's money bulk action",
    call: { kind: "action", args: async (ctx) => [{ bulkId: await pendingBulk(ctx) }] },
    scope: "deadLetters:review",
  },
  {
    target: "action:declineBulkActionAction",
    does: "declines another reviewer's money bulk action, with a reason",
    call: {
      kind: "action",
      args: async (ctx) => [{ bulkId: await pendingBulk(ctx), reason: "amounts look doubled" }],
    },
    scope: "deadLetters:review",
  },
  {
    target: "action:previewBulkMemberAction",
    does: "previews what a bulk action would do to one of its tasks",
    call: { kind: "action", args: async (ctx) => [await pendingBulkOf(ctx)] },
    scope: "tasks:read",
    readOnly: true,
  },
  {
    target: "action:withdrawBulkActionAction",
    does: "withdraws another reviewer's money bulk action (an admin's right; its requester's too)",
    call: { kind: "action", args: async (ctx) => [{ bulkId: await pendingBulk(ctx) }] },
    scope: "deadLetters:review",
    alsoNeeds: "tasks:cancel",
  },
  {
    target: "action:correctInputAction",
    does: "corrects a dead task's input and replays it",
    call: {
      kind: "action",
      args: async (ctx) => [
        { ...(await publishedDeadTask(ctx)), input: '{"fixed":true}', fromStep: 1 },
      ],
    },
    scope: "deadLetters:review",
  },
  {
    target: "action:previewCorrectionAction",
    does: "previews an input correction",
    call: {
      kind: "action",
      args: async (ctx) => [
        { taskId: (await publishedDeadTask(ctx)).taskId, input: '{"fixed":true}', fromStep: 1 },
      ],
    },
    scope: "deadLetters:review",
    readOnly: true,
  },
  {
    target: "action:withdrawReviewRequestAction",
    does: "withdraws a pending two-person request",
    call: {
      kind: "action",
      args: async (ctx) => {
        const { taskId, requestId } = await ctx.pendingReviewRequest();
        return [{ taskId, requestId }];
      },
    },
    scope: "deadLetters:review",
  },
  {
    target: "action:resolveOutcomeAction",
    does: "says an unknown outcome did not happen",
    call: {
      kind: "action",
      args: async (ctx) => [{ ...(await ctx.unknownOutcome()), happened: "no" }],
    },
    scope: "outcomes:resolve",
  },
  {
    target: "action:requestReconcileAction",
    does: "asks a worker to check an unknown outcome with the provider",
    call: { kind: "action", args: async (ctx) => [await reconcilableOutcome(ctx)] },
    scope: "outcomes:resolve",
  },
  {
    target: "action:sendEventAction",
    does: "sends an event by hand from a waiting task's page",
    call: { kind: "action", args: () => [{ name: "authz.event", payload: '{"n": 1}' }] },
    scope: "events:send",
  },
  {
    target: "action:cancelTaskAction",
    does: "cancels a task",
    call: { kind: "action", args: async (ctx) => [await ctx.deadTask()] },
    scope: "tasks:cancel",
  },
];

// enqueueMany: many tasks in a few round trips (one read, then one statement per 1,000 tasks),
// with every guarantee enqueue gives each one: each input checked (the Agent's own zod schema
// here, then the schema its workers published), a key makes its task idempotent, and each
// task gets its ledger stream and task.enqueued entry. All or nothing: one bad item enqueues
// none, and the error names every bad item by its index.
import type pg from "pg";
import { operator } from "../domain/access";
import { parseTraceparent } from "../domain/traceparent";
import { describeIssues } from "../domain/zod-issues";
import { enqueueTasks } from "../server/commands/enqueue-tasks";
import { traceparentOf } from "../server/tracing";
import type { EnqueueOptions } from "./enqueue";
import {
  concurrencyKeyFor,
  InvalidTaskInputError,
  policyProblem,
  priorityProblem,
} from "./enqueue";

export type EnqueueManyItem = Omit<EnqueueOptions, "actor">;

/** Which items were refused (their index in the call) and why; nothing was enqueued. */
export class InvalidTaskBatchError extends InvalidTaskInputError {
  override name = "InvalidTaskBatchError";
  constructor(
    readonly items: { index: number; message: string }[],
    total: number,
  ) {
    super(
      `${items.length} of ${total} tasks refused, nothing was enqueued: ${items
        .slice(0, 5)
        .map((i) => `#${i.index}: ${i.message}`)
        .join("; ")}${items.length > 5 ? "; …" : ""}`,
    );
  }
}

/**
 * Enqueues `items` in one transaction (or in the caller's, given a client); one result per item,
 * in order. `actor` is recorded in the ledger as who enqueued them.
 */
export async function enqueueMany(
  db: pg.Pool | pg.ClientBase,
  items: readonly EnqueueManyItem[],
  opts: { actor?: string } = {},
): Promise<{ taskId: string; created: boolean }[]> {
  const bad: { index: number; message: string }[] = [];
  const keys: (string | undefined)[] = [];
  for (const [index, item] of items.entries()) {
    const wrongPolicy = policyProblem(agentName(item), item.policy);
    if (wrongPolicy) bad.push({ index, message: wrongPolicy });
    const wrongPriority = priorityProblem(agentName(item), item.priority);
    if (wrongPriority) bad.push({ index, message: wrongPriority });
    if (typeof item.agent === "string") continue;
    const parsed = item.agent.input.safeParse(item.input);
    if (!parsed.success) {
      bad.push({
        index,
        message: `invalid input for ${item.agent.name}: ${describeIssues(parsed.error)}`,
      });
      continue;
    }
    const keyed = concurrencyKeyFor(item.agent, item.input);
    if ("problem" in keyed) bad.push({ index, message: keyed.problem });
    else keys[index] = keyed.key;
  }
  if (bad.length > 0) throw new InvalidTaskBatchError(bad, items.length);
  const active = traceparentOf();
  const result = await enqueueTasks(
    db,
    operator(opts.actor ?? "library"),
    items.map((item, index) => ({
      agent: agentName(item),
      input: item.input,
      key: item.key,
      runAt: item.runAt,
      priority: item.priority,
      policy: item.policy,
      concurrencyKey: keys[index],
      unpublished: "enqueue",
      traceparent: item.traceparent === undefined ? active : parseTraceparent(item.traceparent),
    })),
  );
  if (result.ok) return result.value.map((v) => ({ taskId: v.taskId, created: v.created }));
  if (result.code === "invalid") {
    throw new InvalidTaskBatchError(
      result.items.map((i) => ({
        index: i.index,
        message:
          i.refusal.code === "invalid"
            ? `invalid input for ${agentName(items[i.index])}: ${describeIssues(i.refusal.issues)}`
            : i.refusal.message,
      })),
      items.length,
    );
  }
  throw new Error(`enqueueMany: ${result.message}`);
}

function agentName(item: EnqueueManyItem | undefined): string {
  if (!item) return "the agent";
  return typeof item.agent === "string" ? item.agent : item.agent.name;
}

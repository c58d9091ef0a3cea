// startWorker, as the package exports it: a worker inside the team's own process, over their
// DATABASE_URL or pool, running their agents. Beside the task loop it runs what every worker
// of the product runs: the built-in alert-delivery agent and the alert evaluator, and the
// ledger verifier behind the dashboard's chain badge (each can be turned off).
import type { KeyObject } from "node:crypto";
import type pg from "pg";
import { z } from "zod";
import { createPool } from "../db/client";
import type { CallbackSigning } from "../lib/domain/callback-token";
import { logger as defaultLogger, errorFields, type Logger } from "../lib/log";
import { type AnyModel, asModelClient } from "../lib/sdk/ai/as-model-client";
import { type Agent, isAgent } from "../lib/sdk/define";
import type { ModelClient } from "../lib/sdk/model";
import { getAlertDestination } from "../lib/server/queries/get-alert-destination";
import { alertDeliveryAgent } from "./agents/alert-delivery";
import { startAlertEvaluator } from "./alerts/evaluator";
import { startLedgerVerifier } from "./ledger-verify";
import { startWorker as startRuntime } from "./runtime/worker";

/** How many tasks one worker runs at once, at most and by default. */
export const MAX_CONCURRENCY = 256;
export const DEFAULT_CONCURRENCY = 4;

export type StartWorkerOptions = {
  /** A postgres:// URL; the worker opens (and on stop closes) its own pool. */
  databaseUrl?: string;
  /** Or the team's own pool (left open on stop); give it room for concurrency + 3 connections. */
  pool?: pg.Pool;
  agents: readonly Agent[];
  /**
   * What ctx.model / ctx.generateText talk to: an AI SDK language model (`openai("gpt-4o-mini")`,
   * priced by the default table) or `aiModel(model, { prices })`; without it those calls fail.
   */
  model?: AnyModel;
  /** Tasks run at once (1 to MAX_CONCURRENCY, default DEFAULT_CONCURRENCY). */
  concurrency?: number;
  /** A task's lease (default 30 s): a crashed worker's tasks return after this long. */
  leaseMs?: number;
  /** A pino logger (default: JSON lines on stdout, level from LOG_LEVEL). */
  logger?: Logger;
  /** Evaluate alert rules and deliver alerts (default true). */
  alerts?: boolean;
  /** Verify the ledger's hash chain every `verifyIntervalMs` (default true, every 5 minutes). */
  verifyLedger?: boolean;
  verifyIntervalMs?: number;
  /** Checks the signed checkpoints when verifying (see docs/ledger.md). */
  ledgerPublicKey?: KeyObject;
  /** With a public key, verify fails unless the latest signed checkpoint is at most this old (default 25). */
  maxCheckpointAgeHours?: number;
  /** This worker's id in the dashboard (default host-pid-random). */
  id?: string;
  /**
   * Signs ctx.callbackUrl links: the secret the web app checks them with (its CALLBACK_SECRET,
   * else AUTH_SECRET) and the web app's URL. Without it ctx.callbackUrl fails the task.
   */
  callbacks?: CallbackSigning;
};

export type WorkerHandle = {
  id: string;
  /** Stops claiming, lets in-flight tasks finish for up to `graceMs` (default 10 s), hands back the rest. */
  stop(graceMs?: number): Promise<void>;
  /** Tasks running right now. */
  active(): number;
};

const agentSchema = z.custom<Agent>(isAgent, { message: "must be an agent made with defineAgent" });

const optionsSchema = z
  .object({
    databaseUrl: z
      .string()
      .regex(/^postgres(ql)?:\/\/.+/, "must be a postgres:// or postgresql:// URL")
      .optional(),
    pool: z
      .custom<pg.Pool>(
        (p) => typeof p === "object" && p !== null && typeof (p as pg.Pool).connect === "function",
        { message: "must be a pg.Pool" },
      )
      .optional(),
    agents: z.array(agentSchema).min(1, "name at least one agent"),
    model: z
      .custom<AnyModel>((m) => asModelClient(m) !== undefined, {
        message:
          "must be an AI SDK language model or a model client (aiModel(...) from agent-ledger/ai)",
      })
      .transform((m) => asModelClient(m) as ModelClient)
      .optional(),
    concurrency: z.number().int().min(1).max(MAX_CONCURRENCY).default(DEFAULT_CONCURRENCY),
    leaseMs: z.number().int().min(1_000).max(3_600_000).default(30_000),
    logger: z.custom<Logger>((l) => typeof l === "object" && l !== null).optional(),
    alerts: z.boolean().default(true),
    verifyLedger: z.boolean().default(true),
    verifyIntervalMs: z.number().int().min(10_000).default(300_000),
    ledgerPublicKey: z.custom<KeyObject>().optional(),
    maxCheckpointAgeHours: z.number().positive().max(8760).optional(),
    id: z.string().min(1).max(200).optional(),
    callbacks: z
      .object({
        secret: z.string().min(32, "must be at least 32 characters"),
        baseUrl: z.url("must be the web app's URL, e.g. https://ledger.example.com"),
      })
      .optional(),
  })
  .refine((o) => (o.databaseUrl === undefined) !== (o.pool === undefined), {
    message: "give exactly one of databaseUrl or pool",
  })
  .refine(
    (o) => new Set(o.agents.map((a) => a.name)).size === o.agents.length,
    "two agents share a name",
  );

/** Parses the options, naming each one that is wrong. */
export function parseWorkerOptions(options: StartWorkerOptions) {
  const parsed = optionsSchema.safeParse(options);
  if (!parsed.success) {
    throw new TypeError(`startWorker: ${z.prettifyError(parsed.error)}`);
  }
  return parsed.data;
}

export async function startWorker(options: StartWorkerOptions): Promise<WorkerHandle> {
  const opts = parseWorkerOptions(options);
  const log = opts.logger ?? defaultLogger("worker");
  const ownPool = opts.pool === undefined;
  const pool =
    opts.pool ??
    createPool(opts.databaseUrl as string, {
      max: opts.concurrency + 3,
      applicationName: "agent-ledger-worker",
      log: defaultLogger("db"),
    });
  const builtIn = opts.alerts
    ? [alertDeliveryAgent({ loadDestination: (id) => getAlertDestination(pool, id) })]
    : [];
  const clash = opts.agents.find((a) => builtIn.some((b) => b.name === a.name));
  if (clash) throw new TypeError(`startWorker: agent name "${clash.name}" is the built-in one`);
  let runtime: Awaited<ReturnType<typeof startRuntime>>;
  try {
    runtime = await startRuntime({
      pool,
      agents: [...builtIn, ...opts.agents],
      model: opts.model,
      concurrency: opts.concurrency,
      leaseMs: opts.leaseMs,
      logger: log,
      id: opts.id,
      callbacks: opts.callbacks,
    });
  } catch (err) {
    if (ownPool) await pool.end().catch(() => undefined);
    throw err;
  }
  // Every worker evaluates alert rules; the cursor row makes each (rule, event) alert once.
  const alerts = opts.alerts ? startAlertEvaluator({ pool }) : undefined;
  // Every worker runs the loop; an advisory lock makes one of them verify each time.
  const verifier = opts.verifyLedger
    ? startLedgerVerifier({
        pool,
        intervalMs: opts.verifyIntervalMs,
        publicKey: opts.ledgerPublicKey,
        maxCheckpointAgeHours: opts.maxCheckpointAgeHours,
      })
    : undefined;
  let stopping: Promise<void> | undefined;
  return {
    id: runtime.id,
    active: runtime.active,
    stop(graceMs = 10_000) {
      stopping ??= (async () => {
        await runtime.stop(graceMs);
        await alerts?.stop();
        await verifier?.stop();
        if (ownPool) {
          await pool.end().catch((err) => log.warn(errorFields(err), "closing the pool failed"));
        }
      })();
      return stopping;
    },
  };
}

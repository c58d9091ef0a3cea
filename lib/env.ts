// The only reader of process.env: every setting is parsed here with zod, and a bad value
// names the variable and what is wrong with it.
import { z } from "zod";
import { parseTrustedProxies } from "./domain/client-address";
import { modelIdSchema, modelPricingSchema } from "./domain/model-price-form";

const postgresUrl = z
  .string()
  .trim()
  .refine((v) => /^postgres(ql)?:\/\/.+/.test(v), {
    message: "must be a postgres:// or postgresql:// URL",
  });

const urlOf = (v: string): URL | undefined => {
  try {
    return new URL(v);
  } catch {
    return undefined;
  }
};

const optional = <T extends z.ZodType>(schema: T) =>
  z.preprocess((v) => (v === "" ? undefined : v), schema.optional());

const schema = z
  .object({
    NODE_ENV: z.enum(["development", "production", "test"]).default("development"),
    CI: optional(z.string()),
    DATABASE_URL: optional(postgresUrl),
    /**
     * A read replica for the dashboard's screens, the ledger listing and /why; writes, commands,
     * auth and reads right after a person's own action stay on DATABASE_URL. Unset: the primary.
     */
    DATABASE_READ_URL: optional(postgresUrl),
    DATABASE_OWNER_URL: optional(postgresUrl),
    TEST_DATABASE_URL: optional(postgresUrl),
    PORT: z.coerce
      .number({ message: "must be a number" })
      .int("must be a whole number")
      .min(1, "must be between 1 and 65535")
      .max(65535, "must be between 1 and 65535")
      .default(3000),
    AGENT_LEDGER_DATA_DIR: optional(z.string().min(1)),
    LEDGER_SIGNING_KEY: optional(z.string().min(1)),
    LEDGER_PUBLIC_KEY: optional(z.string().min(1)),
    /**
     * A directory whose subdirectories are archives (`agent-ledger archive --to DIR/<name>`): the
     * task page, /why and the task API read an archived task's entries from them once the
     * database no longer holds them.
     */
    LEDGER_ARCHIVE_DIR: optional(z.string().trim().min(1)),
    /** With a ledger key, verify fails unless the latest signed checkpoint is at most this old. */
    LEDGER_CHECKPOINT_MAX_AGE_HOURS: z.coerce
      .number({ message: "must be a number of hours" })
      .positive("must be more than 0 hours")
      .max(8760, "must be at most 8760 hours (a year)")
      .default(25),
    /** How often a worker runs the incremental chain verify behind the /ledger badge. */
    LEDGER_VERIFY_INTERVAL_SECONDS: z.coerce
      .number({ message: "must be a number of seconds" })
      .int("must be a whole number of seconds")
      .min(10, "must be at least 10 seconds")
      .max(86_400, "must be at most 86400 seconds (a day)")
      .default(300),
    HOST: z.string().min(1).default("127.0.0.1"),
    /** Set by `npm start` on its children: they stop when that process is gone. */
    AGENT_LEDGER_PARENT_PID: optional(z.coerce.number().int().positive()),
    /** Where invoice-reminder sends mail; the demo SMTP sink by default. */
    SMTP_URL: optional(
      z.string().refine((v) => /^smtps?:\/\/.+/.test(v), {
        message: "must be an smtp:// or smtps:// URL",
      }),
    ),
    MAIL_FROM: z.string().email("must be an email address").default("billing@agent-ledger.local"),
    /** Stripe-compatible payments API for the refund agent; the demo payments service by default. */
    PAYMENTS_URL: optional(z.string().url("must be a URL")),
    PAYMENTS_API_KEY: z.string().min(1).default("sk_test_agent_ledger_demo"),
    /** Opt-in: the refund tool sends at most this many refunds a second, across all workers. */
    PAYMENTS_RATE_LIMIT_PER_SECOND: optional(z.coerce.number().int().min(1).max(10_000)),
    /** Refunds above this many minor units need a reviewer's approval. */
    REFUND_APPROVAL_THRESHOLD: z.coerce.number().int().min(0).default(20_000),
    /** An OpenAI-compatible chat-completions endpoint; without it the demo's scripted model runs. */
    MODEL_BASE_URL: optional(z.string().url("must be a URL")),
    MODEL_API_KEY: optional(z.string().min(1)),
    MODEL_NAME: z.string().min(1).default("gpt-4o-mini"),
    /**
     * MODEL_NAME's price (both or neither), as before MODEL_PRICES; unset: MODEL_PRICES, then the
     * shipped table prices it (gpt-4o-mini, the default model, at 0.15 / 0.6 as these used to).
     */
    MODEL_INPUT_PRICE_PER_MTOK: optional(
      z.coerce.number({ message: "must be a number" }).min(0, "must be at least 0"),
    ),
    MODEL_OUTPUT_PRICE_PER_MTOK: optional(
      z.coerce.number({ message: "must be a number" }).min(0, "must be at least 0"),
    ),
    /**
     * Prices per model id over the shipped table (lib/sdk/ai/prices.ts), US dollars per million
     * tokens: {"gpt-4o": {"inputPerMTok": 2.5, "outputPerMTok": 10, "cachedInputPerMTok": 1.25}}.
     * An admin's price on the dashboard wins over these.
     */
    MODEL_PRICES: optional(
      z
        .string()
        .transform((v, ctx) => {
          try {
            return JSON.parse(v) as unknown;
          } catch {
            ctx.addIssue({
              code: "custom",
              message:
                'must be a JSON object like {"gpt-4o":{"inputPerMTok":2.5,"outputPerMTok":10}}',
            });
            return z.NEVER;
          }
        })
        .pipe(
          z.record(modelIdSchema, modelPricingSchema, {
            message: 'must be a JSON object of model id → {"inputPerMTok": …, "outputPerMTok": …}',
          }),
        ),
    ),
    /** Chaos harness only: JSON {"effect.started": 0.05, …} of crash probabilities per fault point. */
    AGENT_LEDGER_FAULT_POINTS: optional(z.string().min(2)),
    /** A worker's task lease; a crashed worker's tasks return to the queue after it. */
    AGENT_LEDGER_LEASE_MS: z.coerce.number().int().min(100).max(3_600_000).default(30_000),
    DATABASE_POOL_MAX: z.coerce.number().int().min(1).max(200).default(10),
    /**
     * The web server also evaluates alert rules and delivers alerts (one alert-delivery worker),
     * so "no live worker" is still told when the whole fleet is down. "false" leaves it to workers.
     */
    ALERTS_IN_WEB: z
      .enum(["true", "false"], { message: "must be true or false" })
      .default("true")
      .transform((v) => v === "true"),
    /** Signs session cookies. `npm start` generates one into the data dir when unset. */
    AUTH_SECRET: optional(z.string().min(32, "must be at least 32 characters")),
    /** The URL people open the dashboard at; cookies are Secure when it is https. */
    AUTH_BASE_URL: optional(z.string().url("must be a URL like https://ledger.example.com")),
    /** A session unused this long ends. */
    AUTH_SESSION_IDLE_MINUTES: z.coerce.number().int().min(1).max(43_200).default(60),
    /** A session ends this long after sign-in, used or not. */
    AUTH_SESSION_MAX_HOURS: z.coerce.number().int().min(1).max(720).default(12),
    /** Single sign-on through any OpenID Connect provider (all three or none). */
    OIDC_ISSUER: optional(z.string().url("must be the issuer URL, e.g. https://login.example.com")),
    OIDC_CLIENT_ID: optional(z.string().min(1)),
    OIDC_CLIENT_SECRET: optional(z.string().min(1)),
    /** How long POST /api/v1/tasks remembers an Idempotency-Key (the published retention). */
    IDEMPOTENCY_KEY_RETENTION_HOURS: z.coerce
      .number({ message: "must be a number of hours" })
      .min(1, "must be at least 1 hour")
      .max(720, "must be at most 720 hours (30 days)")
      .default(24),
    /**
     * Signs ctx.callbackUrl links (workers) and checks them (web app): the same value on both.
     * Unset: AUTH_SECRET. Links point at AUTH_BASE_URL (else http://HOST:PORT).
     */
    CALLBACK_SECRET: optional(z.string().min(32, "must be at least 32 characters")),
    /** How long an event is kept for a task that starts waiting for it later (default 24 h). */
    EVENT_KEEP_MS: z.coerce
      .number({ message: "must be a number of milliseconds" })
      .int("must be a whole number of milliseconds")
      .min(0, "must be at least 0")
      .max(2_592_000_000, "must be at most 2592000000 (30 days)")
      .default(86_400_000),
    /** Proxies (IPs or CIDRs, comma-separated) allowed to set X-Forwarded-For; none by default. */
    TRUSTED_PROXIES: optional(
      z.string().refine(
        (v) => {
          try {
            parseTrustedProxies(v);
            return true;
          } catch {
            return false;
          }
        },
        { message: 'must be IPs or CIDRs separated by commas, e.g. "10.0.0.0/8,127.0.0.1"' },
      ),
    ),
    /** Log level of the web server and worker (JSON lines; pretty on a terminal). */
    LOG_LEVEL: z
      .enum(["trace", "debug", "info", "warn", "error", "fatal", "silent"])
      .default("info"),
    /**
     * OpenTelemetry traces (docs/tracing.md), by the standard variables: off unless an OTLP
     * endpoint is set or OTEL_TRACES_EXPORTER asks for an exporter; OTEL_SDK_DISABLED=true wins.
     */
    OTEL_SDK_DISABLED: z
      .enum(["true", "false", "TRUE", "FALSE"], { message: "must be true or false" })
      .default("false")
      .transform((v) => v.toLowerCase() === "true"),
    OTEL_TRACES_EXPORTER: optional(
      z.enum(["otlp", "console", "none"], { message: "must be otlp, console or none" }),
    ),
    /** The collector's base URL: spans go to <it>/v1/traces (OTLP over HTTP, JSON). */
    OTEL_EXPORTER_OTLP_ENDPOINT: optional(
      z.string().url("must be a URL like http://collector:4318"),
    ),
    /** The full traces URL; wins over OTEL_EXPORTER_OTLP_ENDPOINT. */
    OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: optional(
      z.string().url("must be a URL like http://collector:4318/v1/traces"),
    ),
    /** The spans' service.name; default agent-ledger-worker, agent-ledger-web, agent-ledger-demo. */
    OTEL_SERVICE_NAME: optional(z.string().min(1)),
    /**
     * The tracing backend's page for one trace, with {traceId} where the id goes
     * (https://tempo.example.com/trace/{traceId}): the task page links to the task's trace.
     */
    TRACE_URL_TEMPLATE: optional(
      z
        .string()
        .trim()
        .refine((v) => v.includes("{traceId}"), {
          message: "must contain {traceId}, where the trace id goes",
        })
        .refine((v) => /^https?:$/.test(urlOf(v.replaceAll("{traceId}", "0"))?.protocol ?? ""), {
          message: "must be an http(s) URL like https://tempo.example.com/trace/{traceId}",
        }),
    ),
    /** The ID-token claim that lists the person's groups. */
    OIDC_GROUPS_CLAIM: z.string().min(1).default("groups"),
    /** Which IdP group grants which role: "ledger-admins=admin,ledger-reviewers=reviewer". */
    OIDC_ROLE_MAP: optional(
      z
        .string()
        .refine((v) => /^[^=,]+=(admin|reviewer|ops)(,[^=,]+=(admin|reviewer|ops))*$/.test(v), {
          message:
            'must look like "group=admin,other-group=reviewer" (roles: admin, reviewer, ops)',
        }),
    ),
  })
  .refine(
    (e) =>
      (e.MODEL_INPUT_PRICE_PER_MTOK === undefined) ===
      (e.MODEL_OUTPUT_PRICE_PER_MTOK === undefined),
    {
      message: "set both MODEL_INPUT_PRICE_PER_MTOK and MODEL_OUTPUT_PRICE_PER_MTOK, or neither",
      path: ["MODEL_INPUT_PRICE_PER_MTOK"],
    },
  )
  .refine(
    (e) =>
      e.MODEL_INPUT_PRICE_PER_MTOK === undefined ||
      e.MODEL_PRICES === undefined ||
      !Object.hasOwn(e.MODEL_PRICES, e.MODEL_NAME),
    {
      message:
        "MODEL_PRICES also prices MODEL_NAME: price it in one place (MODEL_PRICES, or the two MODEL_*_PRICE_PER_MTOK)",
      path: ["MODEL_PRICES"],
    },
  )
  .refine(
    (e) =>
      [e.OIDC_ISSUER, e.OIDC_CLIENT_ID, e.OIDC_CLIENT_SECRET].every((v) => v === undefined) ||
      [e.OIDC_ISSUER, e.OIDC_CLIENT_ID, e.OIDC_CLIENT_SECRET].every((v) => v !== undefined),
    {
      message: "set all of OIDC_ISSUER, OIDC_CLIENT_ID and OIDC_CLIENT_SECRET, or none",
      path: ["OIDC_ISSUER"],
    },
  );

export type Env = z.infer<typeof schema>;

/** Where the demo receivers listen when SMTP_URL / PAYMENTS_URL are not set (npm start runs them). */
export const DEMO_SMTP_PORT = 2525;
export const DEMO_PAYMENTS_PORT = 4242;
export const DEMO_SMTP_URL = `smtp://127.0.0.1:${DEMO_SMTP_PORT}`;
export const DEMO_PAYMENTS_URL = `http://127.0.0.1:${DEMO_PAYMENTS_PORT}`;
/** The demo webhook sink and the secret of the alert rule `npm start` seeds for it (demo only). */
export const DEMO_WEBHOOK_PORT = 4343;
export const DEMO_WEBHOOK_URL = `http://127.0.0.1:${DEMO_WEBHOOK_PORT}/alerts`;
export const DEMO_WEBHOOK_SECRET = "whsec_ZGVtby1vbmx5LXNlY3JldC1mb3ItdGhlLXdlYmhvb2stc2luaw==";

/** Where spans go, or undefined when tracing is off (docs/tracing.md). */
export function tracesExport(
  e: Env,
): { kind: "otlp"; url: string } | { kind: "console" } | undefined {
  if (e.OTEL_SDK_DISABLED || e.OTEL_TRACES_EXPORTER === "none") return undefined;
  if (e.OTEL_TRACES_EXPORTER === "console") return { kind: "console" };
  const url =
    e.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT ??
    (e.OTEL_EXPORTER_OTLP_ENDPOINT === undefined
      ? undefined
      : `${e.OTEL_EXPORTER_OTLP_ENDPOINT.replace(/\/+$/, "")}/v1/traces`);
  if (url !== undefined) return { kind: "otlp", url };
  // The SDK's own default endpoint, only when asked for by name.
  if (e.OTEL_TRACES_EXPORTER === "otlp")
    return { kind: "otlp", url: "http://localhost:4318/v1/traces" };
  return undefined;
}

/** The worker's configured prices: MODEL_PRICES, and MODEL_NAME's from the two older variables. */
export function configuredPrices(e: Env): Record<string, z.output<typeof modelPricingSchema>> {
  const prices: Record<string, z.output<typeof modelPricingSchema>> = { ...e.MODEL_PRICES };
  if (e.MODEL_INPUT_PRICE_PER_MTOK !== undefined && e.MODEL_OUTPUT_PRICE_PER_MTOK !== undefined) {
    prices[e.MODEL_NAME] = {
      inputPerMTok: e.MODEL_INPUT_PRICE_PER_MTOK,
      outputPerMTok: e.MODEL_OUTPUT_PRICE_PER_MTOK,
    };
  }
  return prices;
}

/** The secret callback links are signed with, and the address they point at. */
export function callbackConfig(e: Env): { secret: string | undefined; baseUrl: string } {
  return {
    secret: e.CALLBACK_SECRET ?? e.AUTH_SECRET,
    baseUrl: e.AUTH_BASE_URL ?? `http://${e.HOST}:${e.PORT}`,
  };
}

/** The worker's signing of callback links, when a secret is configured. */
export function callbackSigning(e: Env): { secret: string; baseUrl: string } | undefined {
  const { secret, baseUrl } = callbackConfig(e);
  return secret === undefined ? undefined : { secret, baseUrl };
}

export class EnvError extends Error {
  override name = "EnvError";
}

export function parseEnv(source: Record<string, string | undefined>): Env {
  const result = schema.safeParse(source);
  if (!result.success) {
    const lines = result.error.issues.map(
      (issue) => `  ${issue.path.join(".") || "(environment)"}: ${issue.message}`,
    );
    throw new EnvError(`Invalid environment:\n${lines.join("\n")}`);
  }
  return result.data;
}

let cached: Env | undefined;

export function env(): Env {
  cached ??= parseEnv(process.env);
  return cached;
}

/** Environment for child processes we spawn (web server, worker): the parent's plus overrides. */
export function childEnv(overrides: Record<string, string>): NodeJS.ProcessEnv {
  return { ...process.env, ...overrides };
}

// Tool rate limits and providers' 429s, the pure part: the limit's shape, the bucket a call
// counts in, a Retry-After header read, and whether a wait is short enough to sit out.
import { z } from "zod";

/** A provider's Retry-After is believed up to an hour; a longer one is capped (documented). */
export const MAX_RETRY_AFTER_MS = 3_600_000;
/** After this many 429s for one effect a further one is an ordinary failure that spends an attempt. */
export const MAX_RATE_LIMITED = 100;
/** A wait up to this share of the lease is sat out holding the task; a longer one hands it back. */
export const SHORT_WAIT_SHARE = 1 / 3;

/** The longest `periodMs` a limit may have: a stamp older than this no window can count. */
export const MAX_RATE_LIMIT_PERIOD_MS = 86_400_000;

export const rateLimitSchema = z.object({
  limit: z.number().int().min(1).max(10_000),
  periodMs: z.number().int().min(1).max(MAX_RATE_LIMIT_PERIOD_MS),
});

export type RateLimitSpec = z.infer<typeof rateLimitSchema>;

/** The bucket a call counts in: the tool's, or one per key (`refund:merchant-7`). */
export function rateLimitBucket(tool: string, key: string | undefined): string {
  return key === undefined ? tool : `${tool}:${key}`;
}

/**
 * Milliseconds a Retry-After header asks for: delay-seconds or an HTTP date, capped at
 * MAX_RETRY_AFTER_MS. Absent or unreadable: undefined (the caller picks its own wait).
 */
export function parseRetryAfter(
  header: string | null | undefined,
  now: Date = new Date(),
): number | undefined {
  const value = header?.trim();
  if (!value) return undefined;
  let ms: number;
  if (/^\d+(\.\d+)?$/.test(value)) ms = Math.ceil(Number(value) * 1000);
  else {
    // An HTTP date names its day and month; Date.parse alone would read "-3" as a year.
    if (!/^[a-z]{3}, /i.test(value)) return undefined;
    const at = Date.parse(value);
    if (Number.isNaN(at)) return undefined;
    ms = at - now.getTime();
  }
  return Math.min(Math.max(0, ms), MAX_RETRY_AFTER_MS);
}

/** Sit out a wait on the lease, or hand the task back until the slot frees. */
export function waitOrHandBack(waitMs: number, leaseMs: number): "wait" | "hand-back" {
  return waitMs <= leaseMs * SHORT_WAIT_SHARE ? "wait" : "hand-back";
}

/** How a tool's limit reads on the dashboard: "10 calls per 1 s", "… per key". */
export function describeRateLimit(limit: RateLimitSpec & { keyed: boolean }): string {
  const ms = limit.periodMs;
  const period =
    ms % 3_600_000 === 0
      ? `${ms / 3_600_000} h`
      : ms % 60_000 === 0
        ? `${ms / 60_000} min`
        : ms % 1_000 === 0
          ? `${ms / 1_000} s`
          : `${ms} ms`;
  return `${limit.limit} ${limit.limit === 1 ? "call" : "calls"} per ${period}${limit.keyed ? " per key" : ""}`;
}

/** A limit as a tool's calls are held to it: per key when the tool's code keys its bucket. */
export type KeyedRateLimit = RateLimitSpec & { keyed: boolean };

/**
 * The limit a tool's calls are held to: an admin's over the code's, bucketed as the code keys
 * it (an admin's limit keeps the code's `key`); null when neither sets one.
 */
export function toolLimitInForce(
  code: KeyedRateLimit | null,
  admin: RateLimitSpec | null,
): (KeyedRateLimit & { source: "admin" | "code" }) | null {
  if (admin) {
    return {
      limit: admin.limit,
      periodMs: admin.periodMs,
      keyed: code?.keyed ?? false,
      source: "admin",
    };
  }
  return code ? { ...code, source: "code" } : null;
}

/** The scope a tool's limit is recorded under in `policy.changed` entries: `tool:<name>`. */
export const TOOL_SCOPE_PREFIX = "tool:";

const changeSideSchema = rateLimitSchema.nullable();

/**
 * A `policy.changed` entry for a tool's rate limit: the admin's limit before and after (null:
 * none, the code's applies) and the code's own limit at the time (null: the code sets none).
 */
export const toolLimitChangeSchema = z.object({
  scope: z.string().startsWith(TOOL_SCOPE_PREFIX),
  before: changeSideSchema,
  after: changeSideSchema,
  code: rateLimitSchema.extend({ keyed: z.boolean() }).nullable(),
});

export type ToolLimitChange = z.infer<typeof toolLimitChangeSchema>;

/**
 * Both sides of a tool limit change as people read them: the admin's limit, or the code's with
 * where it came from when the admin's is cleared ("10 calls per 1 s (agent code)", "No limit").
 */
export function toolLimitChangeSides(c: ToolLimitChange): { before: string; after: string } {
  const keyed = c.code?.keyed ?? false;
  const side = (admin: RateLimitSpec | null) => {
    if (admin) return describeRateLimit({ ...admin, keyed });
    return c.code ? `${describeRateLimit(c.code)} (agent code)` : "No limit";
  };
  return { before: side(c.before), after: side(c.after) };
}

/** "Rate limit 10 calls per 1 s (agent code) → 5 calls per 1 s" (the entry names the scope). */
export function describeToolLimitChange(c: ToolLimitChange): string {
  const { before, after } = toolLimitChangeSides(c);
  return `Rate limit ${before} → ${after}`;
}

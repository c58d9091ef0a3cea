import { describe, expect, it } from "vitest";
import {
  ALERT_DELIVERY_AGENT,
  type AlertEvent,
  type AlertRuleFilter,
  alertRuleSchema,
  destinationHost,
  matchesRule,
} from "./alerts";

const url = "https://hooks.example.com/services/T000/B000/secretpath";

describe("alert rule schema", () => {
  it("accepts each kind with its own filters", () => {
    expect(
      alertRuleSchema.parse({
        name: " refunds ",
        kind: "dead_letter",
        agent: "refund",
        reason: "outcome_unknown",
        destination: "slack",
        url,
      }),
    ).toEqual({
      name: "refunds",
      kind: "dead_letter",
      agent: "refund",
      reason: "outcome_unknown",
      destination: "slack",
      url,
      enabled: true,
    });
    expect(
      alertRuleSchema.parse({
        name: "slow approvals",
        kind: "approval_waiting",
        olderThanMinutes: 30,
        destination: "webhook",
        url: "http://127.0.0.1:4343/alerts",
      }).kind,
    ).toBe("approval_waiting");
  });

  it("refuses other schemes, unknown kinds and reasons, and a missing wait", () => {
    const base = { name: "x", kind: "dead_letter", destination: "webhook" };
    for (const bad of ["file:///etc/passwd", "javascript:alert(1)", "ftp://host/x", "not a url"]) {
      expect(alertRuleSchema.safeParse({ ...base, url: bad }).success).toBe(false);
    }
    expect(alertRuleSchema.safeParse({ ...base, url, kind: "no_such" }).success).toBe(false);
    expect(alertRuleSchema.safeParse({ ...base, url, reason: "bored" }).success).toBe(false);
    expect(alertRuleSchema.safeParse({ ...base, url, agent: "Not An Agent" }).success).toBe(false);
    expect(alertRuleSchema.safeParse({ ...base, url, destination: "email" }).success).toBe(false);
    expect(alertRuleSchema.safeParse({ ...base, url, kind: "approval_waiting" }).success).toBe(
      false,
    );
    expect(
      alertRuleSchema.safeParse({ ...base, url, kind: "approval_waiting", olderThanMinutes: 0 })
        .success,
    ).toBe(false);
  });

  it("shows a destination by host only", () => {
    expect(destinationHost(url)).toBe("hooks.example.com");
    expect(destinationHost("http://127.0.0.1:4343/alerts")).toBe("127.0.0.1:4343");
  });
});

describe("matching events to rules", () => {
  const created = new Date("2026-01-01T10:00:00Z");
  const now = new Date("2026-01-01T12:00:00Z");
  const rule = (over: Partial<AlertRuleFilter> = {}): AlertRuleFilter => ({
    id: "r",
    kind: "dead_letter",
    agent: null,
    reason: null,
    olderThanMinutes: null,
    threshold: null,
    silentForSeconds: null,
    enabled: true,
    createdAt: created,
    ...over,
  });
  const event = (over: Partial<AlertEvent> = {}): AlertEvent => ({
    id: "ledger:1",
    kind: "dead_letter",
    at: new Date("2026-01-01T11:00:00Z"),
    taskId: null,
    agent: "refund",
    reason: "exhausted",
    summary: "",
    ...over,
  });

  it("matches by kind, agent and reason; a null filter matches all", () => {
    expect(matchesRule(rule(), event(), now)).toBe(true);
    expect(matchesRule(rule({ agent: "refund" }), event(), now)).toBe(true);
    expect(matchesRule(rule({ agent: "invoice-reminder" }), event(), now)).toBe(false);
    expect(matchesRule(rule({ reason: "exhausted" }), event(), now)).toBe(true);
    expect(matchesRule(rule({ reason: "budget" }), event(), now)).toBe(false);
    expect(matchesRule(rule({ kind: "outcome_unknown" }), event(), now)).toBe(false);
    expect(matchesRule(rule({ enabled: false }), event(), now)).toBe(false);
  });

  it("ignores ledger history from before the rule, and the delivery agent's own events", () => {
    expect(matchesRule(rule(), event({ at: new Date("2026-01-01T09:59:59Z") }), now)).toBe(false);
    expect(matchesRule(rule(), event({ agent: ALERT_DELIVERY_AGENT }), now)).toBe(false);
  });

  it("an approval alerts once it has waited the rule's minutes, even if older than the rule", () => {
    const waiting = (minutesAgo: number) =>
      event({
        id: "approval:1",
        kind: "approval_waiting",
        reason: null,
        at: new Date(now.getTime() - minutesAgo * 60_000),
      });
    const r = rule({ kind: "approval_waiting", olderThanMinutes: 30 });
    expect(matchesRule(r, waiting(29), now)).toBe(false);
    expect(matchesRule(r, waiting(30), now)).toBe(true);
    expect(matchesRule(r, waiting(600), now)).toBe(true);
  });
});

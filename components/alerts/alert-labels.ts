// How the alerts screen names rule kinds and destinations.
import type { AlertKind } from "../../lib/domain/alerts";

export const KIND_LABELS: Record<AlertKind, string> = {
  dead_letter: "Dead letter",
  outcome_unknown: "Unknown outcome",
  approval_waiting: "Approval waiting",
  no_live_worker: "No live worker",
  spend_day_over: "Spend today over",
  spend_rate_over: "Spend per hour over",
};

export const KIND_HINTS: Record<AlertKind, string> = {
  dead_letter: "a task moved to dead letters",
  outcome_unknown: "an effect started and never recorded its result",
  approval_waiting: "an approval has waited longer than the minutes you set",
  no_live_worker:
    "no worker of the fleet has been seen for the seconds you set (sent by the web server)",
  spend_day_over:
    "model spend today (UTC), of the agent or of all agents, passed the amount you set; at most once a day",
  spend_rate_over:
    "model spend in the last hour, of the agent or of all agents, passed the amount you set; at most once an hour",
};

export const DESTINATION_LABELS = {
  slack: "Slack incoming webhook",
  webhook: "Signed webhook (Standard Webhooks)",
} as const;

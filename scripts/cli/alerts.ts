// agent-ledger alerts: alert rules from a shell (the same commands the dashboard's admins use;
// every change is a `system` ledger entry by "cli:<os user>"), and the evaluator itself:
// `evaluate` runs one pass, `evaluate --watch` keeps running it, for a host whose workers do
// not run the evaluator.
import { setTimeout as sleep } from "node:timers/promises";
import {
  ALERT_DESTINATIONS,
  ALERT_KINDS,
  type AlertRuleChange,
  type AlertRuleInput,
} from "../../lib/domain/alerts";
import { DEAD_REASONS } from "../../lib/domain/task-states";
import { createAlertRule } from "../../lib/server/commands/create-alert-rule";
import { deleteAlertRule } from "../../lib/server/commands/delete-alert-rule";
import { evaluateAlerts } from "../../lib/server/commands/evaluate-alerts";
import { retryAlertDeliveries } from "../../lib/server/commands/retry-alert-deliveries";
import { updateAlertRule } from "../../lib/server/commands/update-alert-rule";
import { type AlertRuleDto, readAlertRules } from "../../lib/server/queries/list-alert-rules";
import { cliPrincipal, failure, listSubcommand, withAppDatabase } from "./operator";
import {
  commandGroup,
  EXIT,
  helpOption,
  jsonOption,
  parseOptions,
  printJson,
  type Subcommand,
  UsageError,
} from "./shared";

const NOTES = `Kinds: ${ALERT_KINDS.join(", ")}. Destinations: ${ALERT_DESTINATIONS.join(", ")}.
Dead-letter reasons: ${DEAD_REASONS.join(", ")}.
no_live_worker takes --silent-for-seconds (10 to 86400, default 60) and no --agent; the web
server delivers it (ALERTS_IN_WEB), since no worker is there to.
spend_day_over (today's UTC model spend) and spend_rate_over (the last hour's) take --threshold,
an amount of money, and an optional --agent (without it: all agents together).
A webhook rule's deliveries are signed in the Standard Webhooks format with its whsec_ secret,
printed once by create.

Exit codes: 0 ok, 1 refused (no such rule, changed meanwhile), 2 could not run or bad options.`;

type Sub = Subcommand["run"];

const ruleOptions = {
  name: { type: "string" },
  kind: { type: "string" },
  agent: { type: "string" },
  reason: { type: "string" },
  "older-than-minutes": { type: "string" },
  "silent-for-seconds": { type: "string" },
  threshold: { type: "string" },
  destination: { type: "string" },
  url: { type: "string" },
  disabled: { type: "boolean" },
} as const;

const minutes = (text: string | undefined) => (text === undefined ? undefined : Number(text));

const create: Sub = async (argv) => {
  const opts = parseOptions(argv, { ...helpOption, ...jsonOption, ...ruleOptions });
  for (const required of ["name", "kind", "destination", "url"] as const) {
    if (opts[required] === undefined) throw new UsageError(`--${required} is required`);
  }
  const input = {
    name: opts.name,
    kind: opts.kind,
    agent: opts.agent,
    reason: opts.reason,
    olderThanMinutes: minutes(opts["older-than-minutes"]),
    silentForSeconds: minutes(opts["silent-for-seconds"]),
    threshold: minutes(opts.threshold),
    destination: opts.destination,
    url: opts.url,
    enabled: opts.disabled !== true,
  } as AlertRuleInput;
  return withAppDatabase("alerts", async (pool) => {
    // The command parses the input with the rule schema: a bad kind or URL is refused there.
    const result = await createAlertRule(pool, cliPrincipal(), input);
    if (!result.ok) return failure("alerts create", result);
    const { id, secret } = result.value;
    if (opts.json) printJson(result.value);
    else {
      console.log(secret ?? id);
      console.error(
        secret
          ? `Created rule ${id}. Its signing secret is above: store it now, it is not shown again.`
          : `Created rule ${id}.`,
      );
    }
    return EXIT.ok;
  });
};

const list = listSubcommand({
  command: "alerts",
  read: readAlertRules,
  none: "No alert rules yet: agent-ledger alerts create …",
  header: ["ID", "NAME", "KIND", "FILTERS", "TO", "HOST", "STATUS", "LAST DELIVERY"],
  cells: (r) => [
    r.id,
    r.name,
    r.kind,
    [
      r.agent ? `agent=${r.agent}` : "",
      r.reason ? `reason=${r.reason}` : "",
      r.olderThanMinutes !== null ? `over=${r.olderThanMinutes}m` : "",
      r.silentForSeconds !== null ? `silent=${r.silentForSeconds}s` : "",
      r.threshold !== null ? `over=$${r.threshold}` : "",
    ]
      .filter(Boolean)
      .join(",") || "-",
    r.destination,
    r.destinationHost,
    r.enabled ? "enabled" : "disabled",
    r.lastDelivery
      ? `${r.lastDelivery.status}${r.lastDelivery.deadReason ? `(${r.lastDelivery.deadReason})` : ""}`
      : "none",
  ],
});

/** The rule's spec as it stands, for a change that sets only some fields. */
function specOf(rule: AlertRuleDto): AlertRuleChange {
  return {
    name: rule.name,
    kind: rule.kind,
    agent: rule.agent ?? undefined,
    reason: rule.reason ?? undefined,
    olderThanMinutes: rule.olderThanMinutes ?? undefined,
    silentForSeconds: rule.silentForSeconds ?? undefined,
    threshold: rule.threshold ?? undefined,
    destination: rule.destination,
    enabled: rule.enabled,
  } as AlertRuleChange;
}

function changeCommand(verb: "update" | "enable" | "disable"): Sub {
  return async (argv) => {
    const opts = parseOptions(argv, {
      ...helpOption,
      ...jsonOption,
      id: { type: "string" },
      ...(verb === "update" ? ruleOptions : {}),
    });
    if (opts.id === undefined) throw new UsageError("--id is required");
    return withAppDatabase("alerts", async (pool, db) => {
      const rule = (await readAlertRules(db)).find((r) => r.id === opts.id);
      if (!rule) {
        console.error(`agent-ledger alerts ${verb}: no alert rule ${opts.id}`);
        return EXIT.problem;
      }
      const o = opts as Record<string, string | boolean | undefined>;
      const given = (k: string) => (typeof o[k] === "string" ? (o[k] as string) : undefined);
      const change = {
        ...specOf(rule),
        ...(verb === "update"
          ? Object.fromEntries(
              Object.entries({
                name: given("name"),
                kind: given("kind"),
                agent: given("agent"),
                reason: given("reason"),
                olderThanMinutes: minutes(given("older-than-minutes")),
                silentForSeconds: minutes(given("silent-for-seconds")),
                threshold: minutes(given("threshold")),
                destination: given("destination"),
                url: given("url"),
              }).filter(([, v]) => v !== undefined),
            )
          : {}),
        enabled: verb === "update" ? o.disabled !== true && rule.enabled : verb === "enable",
      } as AlertRuleChange;
      const result = await updateAlertRule(pool, cliPrincipal(), {
        id: rule.id,
        version: rule.version,
        rule: change,
      });
      if (!result.ok) return failure(`alerts ${verb}`, result);
      if (opts.json) printJson(result.value);
      else if (result.value.secret) {
        console.log(result.value.secret);
        console.error("The rule now signs with the secret above: store it now.");
      } else console.log(`Rule ${rule.id} is at version ${result.value.version}.`);
      return EXIT.ok;
    });
  };
}

const remove: Sub = async (argv) => {
  const opts = parseOptions(argv, { ...helpOption, ...jsonOption, id: { type: "string" } });
  if (opts.id === undefined) throw new UsageError("--id is required");
  return withAppDatabase("alerts", async (pool, db) => {
    const rule = (await readAlertRules(db)).find((r) => r.id === opts.id);
    if (!rule) {
      console.error(`agent-ledger alerts delete: no alert rule ${opts.id}`);
      return EXIT.problem;
    }
    const result = await deleteAlertRule(pool, cliPrincipal(), {
      id: rule.id,
      version: rule.version,
    });
    if (!result.ok) return failure("alerts delete", result);
    if (opts.json) printJson(result.value);
    else console.log(`Rule ${rule.id} is deleted.`);
    return EXIT.ok;
  });
};

const retry: Sub = async (argv) => {
  const opts = parseOptions(argv, { ...helpOption, ...jsonOption, id: { type: "string" } });
  if (opts.id === undefined) throw new UsageError("--id is required");
  const ruleId = opts.id;
  return withAppDatabase("alerts", async (pool) => {
    const result = await retryAlertDeliveries(pool, cliPrincipal(), { ruleId });
    if (!result.ok) return failure("alerts retry", result);
    if (opts.json) printJson(result.value);
    else {
      const { retried, skipped } = result.value;
      console.log(
        `${retried} undelivered alert(s) of rule ${ruleId} queued again${skipped > 0 ? ` (${skipped} already were)` : ""}.`,
      );
    }
    return EXIT.ok;
  });
};

const evaluate: Sub = async (argv) => {
  const opts = parseOptions(argv, {
    ...helpOption,
    ...jsonOption,
    watch: { type: "boolean" },
    "interval-ms": { type: "string", default: "5000" },
  });
  const intervalMs = Number(opts["interval-ms"]);
  if (!Number.isInteger(intervalMs) || intervalMs < 100) {
    throw new UsageError("--interval-ms must be a whole number of at least 100");
  }
  return withAppDatabase("alerts", async (pool) => {
    const stop = new AbortController();
    if (opts.watch) {
      process.once("SIGTERM", () => stop.abort());
      process.once("SIGINT", () => stop.abort());
    }
    do {
      const result = await evaluateAlerts(pool);
      if (opts.json) printJson(result);
      else if (!opts.watch || result.enqueued > 0) {
        console.log(`${result.enqueued} alert(s) enqueued from ${result.events} event(s).`);
      }
      if (!opts.watch) break;
      await sleep(intervalMs, undefined, { signal: stop.signal }).catch(() => undefined);
    } while (!stop.signal.aborted);
    return EXIT.ok;
  });
};

export const alertsCommand = commandGroup({
  name: "alerts",
  summary: "Alert rules (create, list, update, enable, disable, delete, retry) and the evaluator",
  notes: NOTES,
  subcommands: [
    {
      name: "create",
      synopsis:
        "--name N --kind K --destination slack|webhook --url U [--agent A] [--reason R] [--older-than-minutes M] [--silent-for-seconds S] [--disabled] [--json]",
      description: `Adds a rule. A webhook rule's signing secret is printed once on stdout
(SECRET=$(agent-ledger alerts create …)); a Slack rule prints its id.`,
      run: create,
    },
    {
      name: "list",
      synopsis: "[--json]",
      description: "Every rule with its filters, destination host, status and latest delivery.",
      run: list,
    },
    {
      name: "update",
      synopsis: "--id ID [rule options as for create] [--json]",
      description: "Changes the given fields; the others (and the URL, unless given) stay.",
      run: changeCommand("update"),
    },
    {
      name: "enable",
      synopsis: "--id ID [--json]",
      description: "Turns a rule on.",
      run: changeCommand("enable"),
    },
    {
      name: "disable",
      synopsis: "--id ID [--json]",
      description: "Turns a rule off.",
      run: changeCommand("disable"),
    },
    { name: "delete", synopsis: "--id ID [--json]", description: "Deletes a rule.", run: remove },
    {
      name: "retry",
      synopsis: "--id ID [--json]",
      description: `Replays every dead alert-delivery task of the rule (its destination was down),
each keeping its webhook-id; exits non-zero when nothing of the rule is undelivered.`,
      run: retry,
    },
    {
      name: "evaluate",
      synopsis: "[--watch] [--interval-ms N] [--json]",
      description: `Reads new ledger entries and waiting approvals and enqueues one alert-delivery
task per (rule, event); running it twice enqueues nothing twice. --watch keeps going.`,
      run: evaluate,
    },
  ],
});

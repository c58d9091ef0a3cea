// The alert-rule fields as a form or a script sends them (blank means "no filter"), turned
// into the domain's rule input; the domain schema's rules then apply in the command too.
import { z } from "zod";
import {
  ALERT_DESTINATIONS,
  ALERT_KINDS,
  alertRuleChangeSchema,
  alertRuleSchema,
} from "../domain/alerts";

const blank = (value: unknown) =>
  value === null || (typeof value === "string" && value.trim() === "") ? undefined : value;

/** A checkbox's "on", or a boolean from a script; absent means the default (enabled). */
const onOff = z.preprocess(
  (v) => (v === "on" || v === "true" ? true : v === "false" ? false : v),
  z.boolean(),
);

export const alertRuleFormFields = {
  name: z.string({ message: "is required" }).trim().min(1, "enter a name").max(120),
  kind: z.enum(ALERT_KINDS, { message: `must be one of ${ALERT_KINDS.join(", ")}` }),
  agent: z.preprocess(blank, z.string().max(100).optional()),
  reason: z.preprocess(blank, z.string().max(100).optional()),
  olderThanMinutes: z.preprocess(
    blank,
    z.coerce.number({ message: "must be a number" }).optional(),
  ),
  silentForSeconds: z.preprocess(
    blank,
    z.coerce.number({ message: "must be a number" }).optional(),
  ),
  threshold: z.preprocess(blank, z.coerce.number({ message: "must be a number" }).optional()),
  destination: z.enum(ALERT_DESTINATIONS, { message: "must be slack or webhook" }),
  url: z.string({ message: "is required" }).max(2_000),
  enabled: onOff.default(true),
};

/** Only the fields the kind takes: a dead-letter reason left in a hidden input is dropped. */
function kindFields(v: Record<string, unknown>): Record<string, unknown> {
  const { reason, olderThanMinutes, silentForSeconds, threshold, agent, ...common } = v;
  if (v.kind === "dead_letter") return { ...common, agent, reason };
  if (v.kind === "approval_waiting") return { ...common, agent, olderThanMinutes };
  // A fleet with no live worker is about no agent in particular.
  if (v.kind === "no_live_worker") return { ...common, silentForSeconds };
  if (v.kind === "spend_day_over" || v.kind === "spend_rate_over") {
    return { ...common, agent, threshold };
  }
  return { ...common, agent };
}

/** For an edit: a blank URL keeps the rule's own. */
export const alertRuleEditSchema = z
  .object({ ...alertRuleFormFields, url: z.preprocess(blank, z.string().max(2_000).optional()) })
  .transform(kindFields)
  .pipe(alertRuleChangeSchema);

/** Form fields → the domain rule, with per-field messages from either stage. */
export const alertRuleFormSchema = z
  .object(alertRuleFormFields)
  .transform(kindFields)
  .pipe(alertRuleSchema);

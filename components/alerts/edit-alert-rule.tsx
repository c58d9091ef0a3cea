"use client";
// The edit form for the rule named in ?edit=, leaving the page's edit mode when saved.
import { useRouter } from "next/navigation";
import type { AlertRuleDto } from "../../lib/server/queries/list-alert-rules";
import { AlertRuleForm } from "./alert-rule-form";

export function EditAlertRule({ rule }: { rule: AlertRuleDto }) {
  const router = useRouter();
  return <AlertRuleForm rule={rule} onDone={() => router.push("/settings/alerts")} />;
}

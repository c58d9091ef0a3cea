// The dashboard's accessibility rule, as every spec checks it: axe with the WCAG 2.1 A/AA rules,
// and a serious or critical violation fails.
import AxeBuilder from "@axe-core/playwright";
import type { Page } from "@playwright/test";

export const WCAG_TAGS = ["wcag2a", "wcag2aa", "wcag21aa"];

/** `within`: a CSS selector that narrows the check to one part of the page (an open dialog). */
export async function blockingViolations(page: Page, within?: string) {
  const builder = new AxeBuilder({ page }).withTags(WCAG_TAGS);
  // axe throws when `within` matches nothing, so a dialog that did not open cannot pass.
  if (within) builder.include(within);
  const results = await builder.analyze();
  return results.violations.filter((v) => v.impact === "serious" || v.impact === "critical");
}

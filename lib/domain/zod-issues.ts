// One way to say what was wrong with an input, for every boundary that parses with zod.
import type { z } from "zod";

/** First message per field, keyed by its dotted path ("(input)" for the whole value). */
export function issueFields(error: z.ZodError, prefix = ""): Record<string, string> {
  const fields: Record<string, string> = {};
  for (const issue of error.issues) {
    const path = issue.path.length > 0 ? `${prefix}${issue.path.join(".")}` : "(input)";
    fields[path] ??= issue.message;
  }
  return fields;
}

/** "path: message; other.path: message", one entry per field. */
export function describeIssues(error: z.ZodError, prefix = ""): string {
  return Object.entries(issueFields(error, prefix))
    .map(([path, message]) => `${path}: ${message}`)
    .join("; ");
}

// `npm start`'s run file (.data/run.json): who runs (the launcher and its children, so a killed
// launcher's orphans are found) and where (the dashboard and the demo receivers, which move to a
// free port when theirs is taken, so the `demo` commands find them where they really listen).
import { readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { z } from "zod";
import { isAlive } from "../../db/embedded";
import { dataDir } from "../../db/open";

const pid = z.number().int().positive();

export const runFileSchema = z.object({
  launcher: pid,
  web: pid.optional(),
  worker: pid.optional(),
  receivers: pid.optional(),
  /** The dashboard; "" until the web server starts. */
  url: z.string(),
  /** Where the demo receivers listen (and what the worker is given), once they are up. */
  demo: z
    .object({
      smtpUrl: z.string(),
      paymentsUrl: z.url(),
      webhooksUrl: z.url(),
    })
    .optional(),
});

export type RunFile = z.infer<typeof runFileSchema>;

export const runFilePath = () => path.join(dataDir(), "run.json");

/** The run file as written, or undefined when there is none or it does not parse. */
export function readRunFile(file = runFilePath()): RunFile | undefined {
  let raw: unknown;
  try {
    raw = JSON.parse(readFileSync(file, "utf8"));
  } catch {
    return undefined;
  }
  const parsed = runFileSchema.safeParse(raw);
  return parsed.success ? parsed.data : undefined;
}

export function writeRunFile(run: RunFile, file = runFilePath()): void {
  writeFileSync(file, JSON.stringify(run));
}

/**
 * The run file of an `npm start` that still runs; undefined when none does (no file, one that
 * does not parse, or one left by a launcher that was killed: its addresses are stale).
 */
export function liveRun(file = runFilePath()): RunFile | undefined {
  const run = readRunFile(file);
  return run && isAlive(run.launcher) ? run : undefined;
}

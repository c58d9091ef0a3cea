// What failed, by name, from the reporters' JSON: printed at the end of `npm test` and of CI so
// the tail of a log says which test went red (and which passed only on a retry).
import path from "node:path";
import { PROJECT_ROOT } from "../db/open";

export type VitestFile = {
  name: string;
  status: string;
  message?: string;
  assertionResults?: { fullName: string; status: string; failureMessages?: string[] }[];
};

export type PwSuite = {
  title: string;
  file?: string;
  suites?: PwSuite[];
  specs?: {
    title: string;
    file: string;
    tests: { status: string; results: { error?: { message?: string } }[] }[];
  }[];
};

/** Every failed vitest test, or the file when it failed without one (a suite or import error). */
export function vitestFailures(files: VitestFile[]): string[] {
  return files.flatMap((file) => {
    const where = path.relative(PROJECT_ROOT, file.name);
    const tests = (file.assertionResults ?? [])
      .filter((t) => t.status === "failed")
      .map((t) => `${where} › ${t.fullName}: ${firstLine(t.failureMessages?.[0])}`);
    if (tests.length === 0 && file.status === "failed")
      return [`${where}: ${firstLine(file.message)}`];
    return tests;
  });
}

export function firstLine(text: string | undefined): string {
  // biome-ignore lint/suspicious/noControlCharactersInRegex: strips the reporters' ANSI colours
  const plain = (text ?? "").replace(/\u001b\[[0-9;]*m/g, "").trim();
  const line = plain.split("\n")[0] ?? "";
  return line.length > 200 ? `${line.slice(0, 200)}…` : line || "(no message)";
}

/** Every unexpected or flaky Playwright test, named by file and title path. */
export function playwrightFailures(suites: PwSuite[], trail?: string[]): string[] {
  return suites.flatMap((suite) => {
    // The top level is one suite per file, titled with the file's name: said once by spec.file.
    const here = trail === undefined ? [] : [...trail, suite.title];
    const own = (suite.specs ?? []).flatMap((spec) =>
      spec.tests
        .filter((t) => t.status === "unexpected" || t.status === "flaky")
        .map((t) => {
          const error = t.results.find((r) => r.error)?.error?.message;
          const name = [...here, spec.title].join(" › ");
          return `${t.status === "flaky" ? "flaky (passed on retry) " : ""}${spec.file} › ${name}: ${firstLine(error)}`;
        }),
    );
    return [...own, ...playwrightFailures(suite.suites ?? [], here)];
  });
}

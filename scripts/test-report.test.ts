import path from "node:path";
import { describe, expect, it } from "vitest";
import { PROJECT_ROOT } from "../db/open";
import { firstLine, playwrightFailures, vitestFailures } from "./test-report";

describe("the failures the end of a test run names", () => {
  it("names failed vitest tests by file and full name, and a file that failed without a test", () => {
    const failures = vitestFailures([
      {
        name: path.join(PROJECT_ROOT, "db/a.test.ts"),
        status: "failed",
        assertionResults: [
          { fullName: "a works", status: "passed", failureMessages: [] },
          {
            fullName: "a › breaks",
            status: "failed",
            failureMessages: [
              "\u001b[31mAssertionError: expected 1 to be 2\u001b[39m\n    at x.ts:1",
            ],
          },
        ],
      },
      {
        name: path.join(PROJECT_ROOT, "db/b.test.ts"),
        status: "failed",
        message: "Cannot find module './gone'",
        assertionResults: [],
      },
      { name: path.join(PROJECT_ROOT, "db/c.test.ts"), status: "passed", assertionResults: [] },
    ]);
    expect(failures).toEqual([
      "db/a.test.ts › a › breaks: AssertionError: expected 1 to be 2",
      "db/b.test.ts: Cannot find module './gone'",
    ]);
  });

  it("names unexpected and flaky Playwright tests with their describe blocks, not passing ones", () => {
    const spec = (title: string, status: string, message?: string) => ({
      title,
      file: "triage.spec.ts",
      tests: [{ status, results: [{}, ...(message ? [{ error: { message } }] : [])] }],
    });
    const failures = playwrightFailures([
      {
        title: "triage.spec.ts",
        file: "triage.spec.ts",
        specs: [spec("top passes", "expected"), spec("top fails", "unexpected", "Timeout 30000ms")],
        suites: [
          {
            title: "money",
            file: "triage.spec.ts",
            specs: [spec("second reviewer", "flaky", "expect(locator).toBeVisible() failed")],
            suites: [{ title: "deep", specs: [spec("skipped one", "skipped")] }],
          },
        ],
      },
    ]);
    expect(failures).toEqual([
      "triage.spec.ts › top fails: Timeout 30000ms",
      "flaky (passed on retry) triage.spec.ts › money › second reviewer: expect(locator).toBeVisible() failed",
    ]);
  });

  it("keeps one line of at most 200 characters and says when there was no message", () => {
    expect(firstLine(undefined)).toBe("(no message)");
    expect(firstLine(`${"x".repeat(300)}\nsecond`)).toBe(`${"x".repeat(200)}…`);
  });
});

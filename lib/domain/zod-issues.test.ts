import { describe, expect, it } from "vitest";
import { z } from "zod";
import { describeIssues, issueFields } from "./zod-issues";

const schema = z.object({ email: z.email(), tags: z.array(z.string().min(2)) });

describe("zod issue formatting", () => {
  it("keeps the first message per field, with dotted paths", () => {
    const result = schema.safeParse({ email: "nope", tags: ["ok", "x"] });
    expect(result.success).toBe(false);
    if (result.success) return;
    expect(Object.keys(issueFields(result.error))).toEqual(["email", "tags.1"]);
    expect(describeIssues(result.error, "--")).toMatch(/^--email: .+; --tags\.1: .+$/);
  });

  it("names the whole input when the problem is not a field", () => {
    const result = schema.safeParse("a string");
    if (result.success) throw new Error("expected a failure");
    expect(describeIssues(result.error)).toMatch(/^\(input\): /);
  });
});

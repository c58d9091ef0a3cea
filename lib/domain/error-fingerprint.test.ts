import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { setUpTestDatabase } from "../../db/testing/database";
import { errorFingerprint, fingerprintSqlExpression } from "./error-fingerprint";

// The SQL side runs on a real database: the same message must get the same fingerprint there.
const t = await setUpTestDatabase("error_fingerprint");

const CORPUS = [
  "refund re_123 failed: 502",
  "refund re_9 failed: 503",
  "payments: 502 Bad Gateway from POST /v1/refunds (pi_3NxYz)",
  "payments: 503 Service Unavailable from POST /v1/refunds (pi_9)",
  "task 0b7e1c3a-9f2d-4c1e-8a77-2d5f0e6b9c10 timed out after 30000 ms",
  "task 7F3A21C4-0000-4000-8000-ABCDEF012345 timed out after 1.5 s",
  "key 9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08 already used",
  "key 0xdeadbeefdeadbeefdeadbeef already used",
  "mail to ann.smith+billing@example.co.uk bounced",
  "mail to bob@mail.example.com bounced",
  'invalid currency "US dollars" for order ord-7781',
  "invalid currency 'euros' for order ord-1",
  "budget 1,250.75 exceeded by 3.2",
  "outcome_unknown: lease expired   \n\t while sending",
  "  leading and trailing  ",
  "sha256 v2 be4 cafe stay words",
  "ünïcödé ✓ error 42 — done",
  "a_1b_2 x_y z9_q",
  "",
  `${"x".repeat(250)} 1`,
];

describe("errorFingerprint", () => {
  it("groups messages that differ only by ids and numbers", () => {
    expect(errorFingerprint("refund re_123 failed: 502")).toBe("refund <id> failed: <n>");
    expect(errorFingerprint("refund re_9 failed: 503")).toBe(
      errorFingerprint("refund re_123 failed: 502"),
    );
  });

  it("normalises UUIDs, hex keys, emails and quoted values", () => {
    expect(errorFingerprint(CORPUS[4])).toBe("task <uuid> timed out after <n> ms");
    expect(errorFingerprint(CORPUS[6])).toBe("key <hex> already used");
    expect(errorFingerprint(CORPUS[7])).toBe("key <hex> already used");
    expect(errorFingerprint(CORPUS[8])).toBe("mail to <email> bounced");
    expect(errorFingerprint(CORPUS[10])).toBe('invalid currency "…" for order ord-<n>');
    expect(errorFingerprint(CORPUS[11])).toBe("invalid currency '…' for order ord-<n>");
    expect(errorFingerprint(CORPUS[12])).toBe("budget <n> exceeded by <n>");
  });

  it("keeps words that merely contain digits and collapses whitespace", () => {
    expect(errorFingerprint("sha256 v2 be4 cafe stay words")).toBe("sha256 v2 be4 cafe stay words");
    expect(errorFingerprint(CORPUS[13])).toBe("outcome_unknown: lease expired while sending");
  });

  it("keeps different failures apart", () => {
    expect(errorFingerprint("refund failed: 502")).not.toBe(errorFingerprint("email failed: 502"));
  });

  it("answers the empty string for no message and caps the length", () => {
    expect(errorFingerprint(null)).toBe("");
    expect(errorFingerprint(undefined)).toBe("");
    expect(Array.from(errorFingerprint(CORPUS[19])).length).toBe(200);
  });
});

describe("error_fingerprint in SQL", () => {
  it("is the expression fingerprintSqlExpression builds from the same rules", () => {
    const migration = readFileSync(
      new URL("../../db/migrations/0009_error_fingerprint.sql", import.meta.url),
      "utf8",
    );
    expect(migration).toContain(`return ${fingerprintSqlExpression()};`);
  });

  it("agrees with errorFingerprint on every message of the corpus", async () => {
    for (const message of CORPUS) {
      const { rows } = await t.pool.query<{ fp: string | null }>(
        "select error_fingerprint($1) as fp",
        [message],
      );
      expect({ message, fp: rows[0]?.fp ?? "" }).toEqual({
        message,
        fp: errorFingerprint(message),
      });
    }
  });
});

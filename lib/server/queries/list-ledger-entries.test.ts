import { describe, expect, it } from "vitest";
import { withTransaction } from "../../../db/client";
import { setUpTestDatabase } from "../../../db/testing/database";
import { appendLedger } from "../ledger/append-ledger";
import { listLedgerEntries } from "./list-ledger-entries";

const t = await setUpTestDatabase("ledger-list");

describe("listLedgerEntries", () => {
  it("pages from newest to oldest without gaps or repeats, and filters by kind", async () => {
    const appended = await withTransaction(t.pool, (client) =>
      appendLedger(
        client,
        "system",
        Array.from({ length: 23 }, (_, i) => ({
          kind: i % 3 === 0 ? "policy.changed" : "note.added",
          actor: "t",
          data: { i },
        })),
      ),
    );
    const all = appended.map((e) => e.id).sort((a, b) => b - a);

    const seen: number[] = [];
    let before: number | undefined;
    for (let guard = 0; guard < 10; guard++) {
      const page = await listLedgerEntries(t.db, { before }, 10);
      seen.push(...page.entries.map((e) => e.id));
      if (page.olderBefore === null) break;
      before = page.olderBefore;
    }
    expect(seen).toEqual(all);

    const policies = await listLedgerEntries(t.db, { kind: "policy.changed" }, 100);
    expect(policies.entries).toHaveLength(8);
    expect(policies.entries.every((e) => e.kind === "policy.changed")).toBe(true);
    expect(policies.olderBefore).toBeNull();
  });

  it("returns an exact page without promising an empty older one", async () => {
    const page = await listLedgerEntries(t.db, { kind: "policy.changed" }, 8);
    expect(page.entries).toHaveLength(8);
    expect(page.olderBefore).toBeNull();
  });

  it("maps rows to plain DTOs with ISO times", async () => {
    const [entry] = (await listLedgerEntries(t.db, {}, 1)).entries;
    expect(entry).toMatchObject({ stream: "system", actor: "t", taskId: null, key: null });
    expect(entry?.at).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/);
  });
});

import { describe, expect, it } from "vitest";
import { withTransaction } from "../../../db/client";
import { setUpTestDatabase } from "../../../db/testing/database";
import { AuthError } from "../../auth/permissions";
import { testTokenViewer, testViewer } from "../../auth/testing";
import { appendLedger } from "../ledger/append-ledger";
import { listLedgerEntries } from "./list-ledger-entries";

const t = await setUpTestDatabase("ledger-list");
const ops = testViewer("ops");

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
      const page = await listLedgerEntries(t.db, ops, { before }, 10);
      seen.push(...page.entries.map((e) => e.id));
      if (page.olderBefore === null) break;
      before = page.olderBefore;
    }
    expect(seen).toEqual(all);

    const policies = await listLedgerEntries(t.db, ops, { kind: "policy.changed" }, 100);
    expect(policies.entries).toHaveLength(8);
    expect(policies.entries.every((e) => e.kind === "policy.changed")).toBe(true);
    expect(policies.olderBefore).toBeNull();
  });

  it("returns an exact page without promising an empty older one", async () => {
    const page = await listLedgerEntries(t.db, ops, { kind: "policy.changed" }, 8);
    expect(page.entries).toHaveLength(8);
    expect(page.olderBefore).toBeNull();
  });

  it("maps rows to plain DTOs with ISO times", async () => {
    const [entry] = (await listLedgerEntries(t.db, ops, {}, 1)).entries;
    expect(entry).toMatchObject({ stream: "system", actor: "t", taskId: null, key: null });
    expect(entry?.at).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/);
  });
});

describe("listLedgerEntries authorization", () => {
  it("refuses without a viewer (401) and without ledger:read (403)", async () => {
    await expect(listLedgerEntries(t.db, null, {})).rejects.toMatchObject({
      name: "AuthError",
      status: 401,
    });
    const denied = listLedgerEntries(t.db, testTokenViewer(["tasks:read"], "reader"), {});
    await expect(denied).rejects.toBeInstanceOf(AuthError);
    await expect(denied).rejects.toMatchObject({
      status: 403,
      message: 'token "reader" may not do this (needs ledger:read)',
    });
  });
});

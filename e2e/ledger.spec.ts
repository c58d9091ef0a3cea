import { appendEntries, expect, randomWord, test } from "./fixtures";

test("the ledger pages back through older entries without gaps or repeats", async ({
  page,
  db,
}) => {
  const kind = `test.page_${randomWord()}`;
  const ids = await appendEntries(
    db,
    `e2e:${randomWord()}`,
    Array.from({ length: 57 }, (_, i) => ({ kind, actor: "e2e", data: { i } })),
  );
  const newestFirst = [...ids].sort((a, b) => b - a);

  await page.goto(`/ledger?kind=${kind}`);
  const rows = page.locator("tbody tr");
  await expect(rows).toHaveCount(50);
  const first = await rows.evaluateAll((trs) =>
    trs.map((tr) => Number(tr.getAttribute("data-entry-id"))),
  );
  expect(first).toEqual(newestFirst.slice(0, 50));
  await expect(page.getByRole("link", { name: "Newest entries" })).toHaveCount(0);

  await page.getByRole("link", { name: "Older entries" }).click();
  await expect(page).toHaveURL(/cursor=/);
  await expect(rows).toHaveCount(7);
  const second = await rows.evaluateAll((trs) =>
    trs.map((tr) => Number(tr.getAttribute("data-entry-id"))),
  );
  expect(second).toEqual(newestFirst.slice(50));
  await expect(page.getByRole("link", { name: "Older entries" })).toHaveCount(0);

  await page.getByRole("link", { name: "Newest entries" }).click();
  await expect(rows).toHaveCount(50);
});

test("the kind filter form narrows the ledger", async ({ page, db }) => {
  const kind = `test.filter_${randomWord()}`;
  await appendEntries(db, `e2e:${randomWord()}`, [
    { kind, actor: "e2e" },
    { kind: "test.other", actor: "e2e" },
  ]);
  await page.goto("/ledger");
  await page.getByLabel("Kind").fill(kind);
  await page.getByRole("button", { name: "Filter" }).click();
  await expect(page).toHaveURL(new RegExp(`kind=${kind.replace(".", "\\.")}`));
  await expect(page.locator("tbody tr")).toHaveCount(1);
  await expect(page.locator("tbody")).toContainText(kind);
});

const BAD_LEDGER_ADDRESSES = [
  { query: "cursor=abc!", mentions: '"cursor"' },
  { query: "cursor=0", mentions: '"cursor"' },
  { query: "limit=0", mentions: '"limit"' },
  { query: "limit=99999999999999999999", mentions: '"limit"' },
  { query: "kind=DROP%20TABLE%20ledger_entries", mentions: '"kind' },
  { query: `kind=${"a".repeat(101)}`, mentions: '"kind' },
  { query: "kind=effect*", mentions: '"kind' },
  { query: "cursor=1&cursor=2", mentions: '"cursor"' },
  { query: "from=yesterday", mentions: '"from"' },
  { query: "from=2026-01-02T00:00:00Z&to=2026-01-01T00:00:00Z", mentions: "from must be earlier" },
  { query: "taskId=42", mentions: '"taskId"' },
];

for (const bad of BAD_LEDGER_ADDRESSES) {
  test(`the ledger explains a bad address: ?${bad.query.slice(0, 40)}`, async ({ page }) => {
    const response = await page.goto(`/ledger?${bad.query}`);
    expect(response?.status()).toBe(200);
    // The chain badge is an alert too when a verify failed: pick the address's own.
    const alert = page
      .getByRole("main")
      .getByRole("alert")
      .filter({ hasText: "This ledger address is not valid." });
    await expect(alert).toContainText("This ledger address is not valid.");
    await expect(alert).toContainText(bad.mentions);
    await expect(page.locator("tbody tr")).toHaveCount(0);
  });
}

test("the tasks screen explains a bad address", async ({ page }) => {
  for (const query of [
    "status=bogus",
    "before=2025-02-30T00:00:00.000000Z_00000000-0000-0000-0000-000000000000",
    "before=not-a-cursor",
  ]) {
    const response = await page.goto(`/tasks?${query}`);
    expect(response?.status(), query).toBe(200);
    await expect(page.getByRole("main").getByRole("alert")).toContainText(
      "This tasks address is not valid.",
    );
  }
});

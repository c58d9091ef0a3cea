// An archived task (issue 23) in the browser, signed in as ops: its page and its "Why?" answer
// say "Archived on D in archive X". The task closed in 2000, so the archive this spec writes
// takes its stream and no other spec's.
import pg from "pg";
import { archiveClosedTasks, closedTask } from "../lib/server/ledger/archive-testing";
import { generateSigningKey, parsePrivateKey } from "../lib/server/ledger/signing";
import { asRole, expect, test } from "./fixtures";
import { E2E_ARCHIVE_DIR, readE2eDatabase } from "./settings";

test.use(asRole("ops"));

test("an archived task's page and its Why? answer name the archive and the date", async ({
  page,
  db,
}) => {
  const task = await closedTask(db, "succeeded", "2000-01-01T00:00:00Z");
  const archive = await archiveClosedTasks(db, new Date("2000-01-02T00:00:00Z"));
  const when = `${archive.at.slice(0, 19).replace("T", " ")} UTC`;

  await page.goto(`/tasks/${task.id}`);
  const notice = page.getByTestId("task-archived");
  await expect(notice).toContainText(`Archived on ${when} in archive ${archive.archiveId}`);
  await expect(notice).toContainText("agent-ledger verify --archive DIR");
  await expect(notice).toContainText("nothing more can be appended");
  // Phase 1 keeps the entries: the ledger still shows the stream.
  await expect(
    page
      .getByRole("list", { name: "Ledger entries of this task, oldest first" })
      .locator(":scope > li[data-kind]"),
  ).toHaveCount(2);

  await page.goto(`/why?taskId=${task.id}`);
  await expect(page.getByTestId("task-archived")).toContainText(
    `Archived on ${when} in archive ${archive.archiveId}`,
  );
});

/** The detach phase 2 makes: the stream's entries leave the database, its head row stays. */
async function detach(taskId: string): Promise<void> {
  const su = new pg.Client({ connectionString: readE2eDatabase().superUrl });
  await su.connect();
  try {
    await su.query("set session_replication_role = replica");
    await su.query("delete from ledger_entries where stream = $1", [`task:${taskId}`]);
  } finally {
    await su.end();
  }
}

test("once its entries left the database, the page reads them from the archive files, or says why it cannot", async ({
  page,
  db,
}) => {
  // Closed in February 2000: after the spec above's archive, before this one's.
  const task = await closedTask(db, "succeeded", "2000-02-01T00:00:00Z");
  const archive = await archiveClosedTasks(db, new Date("2000-02-02T00:00:00Z"), {
    into: E2E_ARCHIVE_DIR,
    name: `feb-2000-${task.id}`,
    signingKey: parsePrivateKey(generateSigningKey().privateKey),
  });
  await detach(task.id);
  const entries = page
    .getByRole("list", { name: "Ledger entries of this task, oldest first" })
    .locator(":scope > li[data-kind]");

  await page.goto(`/tasks/${task.id}`);
  await expect(page.getByTestId("task-archived")).toContainText(
    `in archive ${archive.archiveId} — entries read from the archive files (verified)`,
  );
  await expect(entries).toHaveCount(2);
  await page.goto(`/why?taskId=${task.id}`);
  await expect(page.getByTestId("task-archive-source")).toHaveText(
    " — entries read from the archive files (verified)",
  );

  // An archive this server has no files of.
  const lost = await closedTask(db, "succeeded", "2000-03-01T00:00:00Z");
  const gone = await archiveClosedTasks(db, new Date("2000-03-02T00:00:00Z"));
  await detach(lost.id);
  await page.goto(`/tasks/${lost.id}`);
  await expect(page.getByTestId("task-archive-unavailable")).toContainText(
    `this server cannot read them from the archive: the archive is not under this server's LEDGER_ARCHIVE_DIR (no directory in ${E2E_ARCHIVE_DIR} holds archive ${gone.archiveId})`,
  );
  await expect(entries).toHaveCount(0);
});

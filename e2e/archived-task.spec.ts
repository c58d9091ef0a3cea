// An archived task (issue 23) in the browser, signed in as ops: its page and its "Why?" answer
// say "Archived on D in archive X". The task closed in 2000, so the archive this spec writes
// takes its stream and no other spec's.
import { archiveClosedTasks, closedTask } from "../lib/server/ledger/archive-testing";
import { asRole, expect, test } from "./fixtures";

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

// The sidebar below 1024 px: a bar with the brand, the inbox count and a Menu button that opens
// the navigation (a disclosure); the content gets the whole width. From 1024 px up, the column.
import { expect, test } from "./fixtures";

test.describe("on a tablet", () => {
  test.use({ viewport: { width: 820, height: 1180 } });

  test("the sidebar folds into a bar; Menu opens it, by mouse and by keyboard", async ({
    page,
  }) => {
    await page.goto("/");
    const menu = page.getByRole("button", { name: "Menu" });
    const nav = page.getByRole("navigation", { name: "Main" });
    await expect(menu).toHaveAttribute("aria-expanded", "false");
    const panelId = await menu.getAttribute("aria-controls");
    expect(panelId).toBeTruthy();
    await expect(nav).toBeHidden();
    // The inbox count stays in view while the navigation is folded away.
    await expect(page.getByTestId("inbox-count-bar")).toBeVisible();
    await expect(page.getByTestId("inbox-count-bar")).toHaveAttribute(
      "data-count",
      (await page.getByTestId("inbox-count").getAttribute("data-count")) ?? "missing",
    );
    // The content has the width the column had.
    const main = await page.getByRole("main").boundingBox();
    expect(main?.x).toBe(0);
    expect(main?.width).toBeGreaterThan(800);

    await menu.click();
    await expect(menu).toHaveAttribute("aria-expanded", "true");
    await expect(nav).toBeVisible();
    await expect(page.locator(`[id="${panelId}"]`)).toContainText("Sign out");
    // Esc folds it again and gives the focus back to the button.
    await nav.getByRole("link", { name: "Tasks" }).focus();
    await page.keyboard.press("Escape");
    await expect(menu).toHaveAttribute("aria-expanded", "false");
    await expect(menu).toBeFocused();
    await expect(nav).toBeHidden();

    // By keyboard: Enter opens, Tab walks into the navigation, Enter follows a link, and the panel closes.
    await page.keyboard.press("Enter");
    await expect(nav).toBeVisible();
    await page.keyboard.press("Tab");
    await expect(nav.getByRole("link", { name: "Overview" })).toBeFocused();
    await page.keyboard.press("Tab");
    await expect(nav.getByRole("link", { name: "Inbox" })).toBeFocused();
    await page.keyboard.press("Enter");
    await expect(page).toHaveURL((url) => url.pathname === "/inbox");
    await expect(page.getByRole("heading", { level: 1 })).toHaveText("Inbox");
    await expect(menu).toHaveAttribute("aria-expanded", "false");
    await expect(nav).toBeHidden();
  });
});

test("on a desktop the sidebar is a column, always open, with no Menu button", async ({ page }) => {
  await page.setViewportSize({ width: 1280, height: 800 });
  await page.goto("/");
  await expect(page.getByRole("navigation", { name: "Main" })).toBeVisible();
  await expect(page.getByRole("button", { name: "Menu" })).toBeHidden();
  await expect(page.getByTestId("inbox-count-bar")).toBeHidden();
  const main = await page.getByRole("main").boundingBox();
  // 15rem.
  expect(main?.x).toBe(240);
});

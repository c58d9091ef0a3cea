import { expect, test } from "./fixtures";

const SECTIONS = [
  { name: "Overview", path: "/", heading: "Overview" },
  { name: "Inbox", path: "/inbox", heading: "Inbox" },
  { name: "Tasks", path: "/tasks", heading: "Tasks" },
  { name: "Dead letters", path: "/dead-letters", heading: "Dead letters" },
  { name: "Approvals", path: "/approvals", heading: "Approvals" },
  { name: "Agents", path: "/agents", heading: "Agents" },
  { name: "Schedules", path: "/schedules", heading: "Schedules" },
  { name: "Ledger", path: "/ledger", heading: "Ledger" },
  { name: "Why?", path: "/why", heading: "Why?" },
  { name: "Spend", path: "/spend", heading: "Spend" },
  { name: "Retry policies", path: "/settings/retry-policies", heading: "Retry policies" },
  { name: "Alerts", path: "/settings/alerts", heading: "Alerts" },
  { name: "Users", path: "/settings/users", heading: "Users" },
  { name: "API tokens", path: "/settings/tokens", heading: "API tokens" },
] as const;

test("the shell has landmarks, a skip link and the navigation", async ({ page }) => {
  const response = await page.goto("/");
  expect(response?.status()).toBe(200);
  await expect(page).toHaveTitle(/Agent Ledger/);
  await expect(page.getByRole("banner").getByRole("link", { name: "Agent Ledger" })).toBeVisible();

  const nav = page.getByRole("navigation", { name: "Main" });
  await expect(nav.getByRole("link")).toHaveText(SECTIONS.map((s) => s.name));
  await expect(nav.getByRole("link", { name: "Overview" })).toHaveAttribute("aria-current", "page");
  await expect(nav.locator('[aria-current="page"]')).toHaveCount(1);
  await expect(page.getByRole("main")).toBeVisible();
  await expect(page.getByRole("heading", { level: 1 })).toHaveText("Overview");

  // The skip link is the first stop for keyboard users and moves focus past the navigation.
  await page.keyboard.press("Tab");
  const skip = page.getByRole("link", { name: "Skip to main content" });
  await expect(skip).toBeFocused();
  await expect(skip).toBeInViewport();
  await page.keyboard.press("Enter");
  await expect(page.getByRole("main")).toBeFocused();
});

test("every navigation link leads to a page that renders", async ({ page }) => {
  // Twenty-four page loads, each reading the session and its page's data.
  test.slow();
  const problems: string[] = [];
  page.on("pageerror", (err) => problems.push(`page error: ${err.message}`));
  page.on("console", (msg) => {
    if (msg.type() === "error") problems.push(`console error: ${msg.text()}`);
  });
  page.on("response", (res) => {
    if (res.status() >= 500) problems.push(`${res.status()} from ${res.url()}`);
  });

  await page.goto("/");
  const nav = page.getByRole("navigation", { name: "Main" });
  for (const section of SECTIONS) {
    await nav.getByRole("link", { name: section.name, exact: true }).click();
    await expect(page).toHaveURL((url) => url.pathname === section.path);
    await expect(page.getByRole("heading", { level: 1 })).toHaveText(section.heading);
    await expect(nav.getByRole("link", { name: section.name, exact: true })).toHaveAttribute(
      "aria-current",
      "page",
    );
    await expect(nav.locator('[aria-current="page"]')).toHaveCount(1);
    await expect(page.getByText("This page could not load")).toHaveCount(0);
  }

  // And each loads on its own, as a bookmark or a reload would.
  for (const section of SECTIONS) {
    const response = await page.goto(section.path);
    expect(response?.status(), section.path).toBe(200);
    await expect(page.getByRole("heading", { level: 1 })).toHaveText(section.heading);
  }
  expect(problems).toEqual([]);
});

test("on a phone the navigation stays reachable and the page does not scroll sideways", async ({
  page,
}) => {
  await page.setViewportSize({ width: 390, height: 844 });
  await page.goto("/");
  const nav = page.getByRole("navigation", { name: "Main" });
  // Folded behind the Menu button on a phone (e2e/sidebar.spec.ts has the tablet's).
  await expect(nav).toBeHidden();
  await page.getByRole("button", { name: "Menu" }).click();
  await expect(nav).toBeVisible();
  const tokens = nav.getByRole("link", { name: "API tokens" });
  await tokens.scrollIntoViewIfNeeded();
  await tokens.click();
  await expect(page.getByRole("heading", { level: 1 })).toHaveText("API tokens");
  const overflow = await page.evaluate(
    () => document.documentElement.scrollWidth - document.documentElement.clientWidth,
  );
  expect(overflow).toBeLessThanOrEqual(0);
});

test("an unknown address gets a 404 page", async ({ page }) => {
  const response = await page.goto("/no-such-page");
  expect(response?.status()).toBe(404);
  await expect(page.getByRole("heading", { level: 1 })).toHaveText(
    "There is no page at this address",
  );
});

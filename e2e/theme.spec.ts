// The colour theme: chosen in the user menu (or on the sign-in page), kept across reloads by a
// cookie the server reads (the HTML arrives already themed), and "System" follows the operating
// system's setting as it changes.
import { mkdirSync } from "node:fs";
import type { Page } from "@playwright/test";
import { THEME_COOKIE } from "../components/theme/theme";
import { ANONYMOUS, expect, paintedLightness, test } from "./fixtures";

async function themeCookie(page: Page): Promise<string | undefined> {
  const cookies = await page.context().cookies();
  return cookies.find((c) => c.name === THEME_COOKIE)?.value;
}

test("a chosen theme shows at once and survives a reload", async ({ page }) => {
  await page.emulateMedia({ colorScheme: "light" });
  await page.goto("/tasks");
  const theme = page.getByRole("group", { name: "Theme" });
  await expect(theme.getByRole("radio", { name: "System" })).toBeChecked();
  expect(await paintedLightness(page)).toBeGreaterThan(0.9);

  await theme.getByRole("radio", { name: "Dark" }).check();
  await expect(page.locator("html")).toHaveAttribute("data-theme", "dark");
  expect(await paintedLightness(page)).toBeLessThan(0.2);
  expect(await themeCookie(page)).toBe("dark");
  // Native controls and scrollbars follow too.
  expect(await page.evaluate(() => getComputedStyle(document.documentElement).colorScheme)).toBe(
    "dark",
  );

  await page.reload();
  await expect(page.locator("html")).toHaveAttribute("data-theme", "dark");
  await expect(theme.getByRole("radio", { name: "Dark" })).toBeChecked();
  expect(await paintedLightness(page)).toBeLessThan(0.2);
  // The server wrote it into the HTML: the first paint is dark, no script has to run first.
  const html = await (await page.context().request.get("/tasks")).text();
  expect(html).toMatch(/<html[^>]*data-theme="dark"/);

  // Light wins over a dark system once chosen.
  await page.emulateMedia({ colorScheme: "dark" });
  await theme.getByRole("radio", { name: "Light" }).check();
  await expect(page.locator("html")).toHaveAttribute("data-theme", "light");
  expect(await paintedLightness(page)).toBeGreaterThan(0.9);
  await page.reload();
  await expect(theme.getByRole("radio", { name: "Light" })).toBeChecked();
  expect(await paintedLightness(page)).toBeGreaterThan(0.9);
});

test("System follows the operating system's setting as it changes", async ({ page }) => {
  await page.emulateMedia({ colorScheme: "dark" });
  await page.goto("/");
  const theme = page.getByRole("group", { name: "Theme" });
  await theme.getByRole("radio", { name: "Dark" }).check();
  await theme.getByRole("radio", { name: "System" }).check();
  expect(await themeCookie(page)).toBe("system");
  await expect(page.locator("html")).toHaveAttribute("data-theme", "system");
  expect(await paintedLightness(page)).toBeLessThan(0.2);

  await page.emulateMedia({ colorScheme: "light" });
  expect(await paintedLightness(page)).toBeGreaterThan(0.9);
  await page.reload();
  await expect(theme.getByRole("radio", { name: "System" })).toBeChecked();
  expect(await paintedLightness(page)).toBeGreaterThan(0.9);
  await page.emulateMedia({ colorScheme: "dark" });
  expect(await paintedLightness(page)).toBeLessThan(0.2);
});

test("the sidebar stays dark in both themes", async ({ page }) => {
  await page.goto("/");
  const theme = page.getByRole("group", { name: "Theme" });
  const sidebar = page.getByRole("banner");
  const sidebarColour = () =>
    sidebar.evaluate((el) => getComputedStyle(el.parentElement ?? el).backgroundColor);
  await theme.getByRole("radio", { name: "Light" }).check();
  const light = await sidebarColour();
  await theme.getByRole("radio", { name: "Dark" }).check();
  expect(await paintedLightness(page)).toBeLessThan(0.2);
  expect(await sidebarColour()).toBe(light);
});

test.describe("signed out", () => {
  test.use(ANONYMOUS);

  test("the sign-in page has the toggle and follows the system", async ({ page }) => {
    await page.emulateMedia({ colorScheme: "dark" });
    await page.goto("/sign-in");
    expect(await paintedLightness(page)).toBeLessThan(0.2);
    await page.getByRole("group", { name: "Theme" }).getByRole("radio", { name: "Light" }).check();
    expect(await paintedLightness(page)).toBeGreaterThan(0.9);
    await page.reload();
    expect(await paintedLightness(page)).toBeGreaterThan(0.9);
  });
});

test("screenshots of the dark theme for the docs", async ({ page, baseURL }) => {
  if (!baseURL) throw new Error("no baseURL");
  await page.context().addCookies([{ name: THEME_COOKIE, value: "dark", url: baseURL }]);
  await page.setViewportSize({ width: 1280, height: 860 });
  mkdirSync("docs/screenshots", { recursive: true });
  for (const [path, file] of [
    ["/", "overview-dark.png"],
    ["/dead-letters", "dead-letters-dark.png"],
    ["/ledger", "ledger-dark.png"],
  ] as const) {
    await page.goto(path);
    await expect(page.getByRole("heading", { level: 1 })).toBeVisible();
    expect(await paintedLightness(page)).toBeLessThan(0.2);
    await page.screenshot({ path: `docs/screenshots/${file}` });
  }
  // And a tablet with the menu open, in the dark.
  await page.setViewportSize({ width: 820, height: 1000 });
  await page.goto("/inbox");
  await page.getByRole("button", { name: "Menu" }).click();
  await expect(page.getByRole("navigation", { name: "Main" })).toBeVisible();
  await page.screenshot({ path: "docs/screenshots/tablet-menu-dark.png" });
});

// Signs each demo role in through the real sign-in page once per run and saves the browser's
// cookies, so specs start signed in (playwright.config.ts makes every spec depend on this).
import { test as setup } from "@playwright/test";
import { DEMO_PASSWORD, DEMO_USERS } from "../lib/server/commands/users";
import { expect, signInThroughForm } from "./fixtures";
import { authStateFile } from "./settings";

for (const user of DEMO_USERS) {
  setup(`sign in as ${user.role}`, async ({ page }) => {
    await page.goto("/sign-in");
    await signInThroughForm(page, user.email, DEMO_PASSWORD);
    await expect(page).toHaveURL((url) => url.pathname === "/");
    await expect(page.getByTestId("viewer-role")).toHaveText(user.role);
    await page.context().storageState({ path: authStateFile(user.role) });
  });
}

import { defineConfig, devices } from "@playwright/test";
import { authStateFile, e2ePort } from "./e2e/settings";

const port = e2ePort();
const baseURL = `http://127.0.0.1:${port}`;

export default defineConfig({
  testDir: "e2e",
  outputDir: "test-results/artifacts",
  // Specs write rows to the one shared database and compare counts; one at a time keeps every
  // "before" and "after" their own.
  fullyParallel: false,
  workers: 1,
  forbidOnly: Boolean(process.env.CI),
  // CI machines are shared 2-core boxes: one retry there, and a test that needed it is named
  // as flaky at the end of the run (scripts/test.ts) so it is seen and mended, not hidden.
  retries: process.env.CI ? 1 : 0,
  // Twice the local budget on CI, where the box is shared: a spec that needs more than 30 s
  // still shows up locally.
  timeout: process.env.CI ? 60_000 : 30_000,
  expect: { timeout: 10_000 },
  reporter: [["list"], ["json", { outputFile: "test-results/e2e.json" }]],
  use: {
    ...devices["Desktop Chrome"],
    baseURL,
    trace: "retain-on-failure",
    launchOptions: {
      executablePath: "/usr/bin/chromium",
      args: [
        "--disable-dev-shm-usage",
        "--disable-gpu",
        "--no-first-run",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
      ],
    },
  },
  projects: [
    // Signs each demo role in through the real sign-in page once and saves its cookies; filters
    // on the command line never skip it.
    { name: "setup", testMatch: /auth\.setup\.ts$/ },
    {
      name: "chromium",
      dependencies: ["setup"],
      // Admin sees every page; a spec picks another role with test.use(asRole(…)) or ANONYMOUS.
      use: { storageState: authStateFile("admin") },
    },
  ],
  webServer: {
    command: "node --import tsx e2e/server.ts",
    // Healthy means the app is up and its database answers.
    url: `${baseURL}/api/health`,
    env: { E2E_PORT: String(port) },
    reuseExistingServer: false,
    timeout: 180_000,
    stdout: "pipe",
    stderr: "pipe",
    gracefulShutdown: { signal: "SIGTERM", timeout: 10_000 },
  },
});

// Accessibility: axe over every page of the app (each app/**/page.tsx, with the states that
// change what it shows: a task dead, succeeded and waiting for approval, a filtered dead-letter
// list, a ledger row opened, a /why answer), in the light and the dark theme, and on a tablet with
// the sidebar folded and open; on the pages that have them, with each review dialog open (a dead
// task's resume, reject and replay, the dead-letter bulk confirmations, an approval's approve).
// A serious or critical violation of WCAG 2.1 A/AA fails the test, named in the message with
// where it is and what is wrong.
import type { Locator, Page } from "@playwright/test";
import { THEME_COOKIE, type Theme } from "../components/theme/theme";
import { blockingViolations } from "./axe";
import {
  ANONYMOUS,
  E2E_APPROVAL_THRESHOLD_CENTS,
  enqueue,
  expect,
  paintedLightness,
  randomWord,
  refundAgent,
  runTasks,
  test,
} from "./fixtures";

const THEMES = ["light", "dark"] as const satisfies readonly Theme[];

type Staged = { agent: string; dead: string; succeeded: string; awaiting: string; key: string };

/** A review dialog the page opens, checked on the page the visit already loaded. */
type Dialog = {
  /** Its accessible name (the dialog's title). */
  name: string;
  trigger: (page: Page) => Locator;
  /** What it shows once its content has loaded (a preview read on opening), before axe looks. */
  loaded?: (dialog: Locator) => Locator;
};

type Visit = {
  name: string;
  path: (s: Staged) => string;
  /** After the page shows its heading: bring it into the state under test. */
  prepare?: (page: Page) => Promise<void>;
  /** Opened one at a time after the page's own check, each checked, then closed with Esc. */
  dialogs?: Dialog[];
};

const bulkDialog = (action: "resume" | "reject" | "replay", title: string): Dialog => ({
  name: `${title} 1 dead task`,
  trigger: (page) => page.getByTestId(`bulk-${action}`),
  loaded: (dialog) => dialog.getByTestId("bulk-confirm"),
});

const DASHBOARD: Visit[] = [
  { name: "overview", path: () => "/" },
  { name: "tasks", path: () => "/tasks" },
  {
    name: "dead task",
    path: (s) => `/tasks/${s.dead}`,
    dialogs: [
      { name: "Resume the dead task", trigger: (page) => page.getByTestId("resume-open") },
      { name: "Reject the dead task", trigger: (page) => page.getByTestId("reject-dead-open") },
      {
        name: "Replay from a step",
        trigger: (page) => page.getByTestId("replay-open"),
        loaded: (dialog) => dialog.getByTestId("review-preview"),
      },
    ],
  },
  { name: "succeeded task", path: (s) => `/tasks/${s.succeeded}` },
  {
    name: "task awaiting approval",
    path: (s) => `/tasks/${s.awaiting}`,
    dialogs: [
      { name: "Approve issue_refund", trigger: (page) => page.getByTestId("approve-open") },
    ],
  },
  { name: "dead letters", path: () => "/dead-letters" },
  {
    name: "dead letters of one agent, its one task ticked",
    path: (s) => `/dead-letters?agent=${s.agent}`,
    prepare: async (page) => {
      await page.getByRole("checkbox", { name: /^Select task / }).check();
      await expect(page.getByTestId("selected-count")).toHaveText("1 selected");
    },
    dialogs: [
      bulkDialog("resume", "Resume"),
      bulkDialog("reject", "Reject"),
      bulkDialog("replay", "Replay"),
    ],
  },
  { name: "inbox", path: () => "/inbox" },
  { name: "approvals", path: () => "/approvals" },
  { name: "agents, their tools and workers", path: () => "/agents" },
  { name: "schedules", path: () => "/schedules" },
  { name: "spend", path: () => "/spend" },
  {
    name: "ledger with an entry opened",
    path: (s) => `/ledger?taskId=${s.succeeded}`,
    prepare: async (page) => {
      await page
        .getByTestId("ledger-row")
        .first()
        .getByRole("button", { name: /Show data of entry/ })
        .click();
      await expect(page.getByRole("button", { name: /Hide data of entry/ })).toBeVisible();
    },
  },
  {
    name: "why with an answer",
    path: (s) => `/why?key=${s.key}`,
    prepare: async (page) => {
      await expect(page.getByText(/issue_refund/).first()).toBeVisible();
    },
  },
  { name: "retry policies", path: () => "/settings/retry-policies" },
  { name: "users", path: () => "/settings/users" },
  { name: "API tokens", path: () => "/settings/tokens" },
  { name: "alerts", path: () => "/settings/alerts" },
];

let staged: Staged | undefined;

function stagedTasks(): Staged {
  if (!staged) throw new Error("beforeAll did not stage the tasks");
  return staged;
}

test.beforeAll(async ({ db }) => {
  // Tasks of a refund agent only this spec runs: one per task page state.
  const agent = refundAgent(`e2e-a11y-${randomWord(6)}`);
  const succeeded = await enqueue(db, agent.name, {
    orderId: `ord_${randomWord(6)}`,
    amountCents: 700,
  });
  const dead = await enqueue(
    db,
    agent.name,
    { orderId: `ord_${randomWord(6)}`, amountCents: 500, failAfterRefund: true },
    { maxAttempts: 1 },
  );
  const awaiting = await enqueue(db, agent.name, {
    orderId: `ord_${randomWord(6)}`,
    amountCents: E2E_APPROVAL_THRESHOLD_CENTS + 1_000,
  });
  await runTasks([agent], [succeeded, dead], ["succeeded", "dead"]);
  await runTasks([agent], [awaiting], ["awaiting_approval"]);
  const { rows } = await db.query<{ key: string }>(
    "select key from effects where task_id = $1 and status = 'succeeded'",
    [succeeded],
  );
  const key = rows[0]?.key;
  if (!key) throw new Error("the succeeded refund recorded no effect");
  staged = { agent: agent.name, dead, succeeded, awaiting, key };
});

async function useTheme(page: Page, baseURL: string | undefined, theme: Theme) {
  if (!baseURL) throw new Error("no baseURL");
  await page.context().addCookies([{ name: THEME_COOKIE, value: theme, url: baseURL }]);
}

/**
 * Checks that the theme is the one painted, then runs axe; serious and critical fail. With
 * `within`, only that part: the theme is still the page's, but a modal's backdrop covers the
 * page, so its paint is not the theme's.
 */
async function expectAccessible(
  page: Page,
  theme: Theme | "system",
  what: string,
  within?: string,
) {
  if (theme !== "system") await expect(page.locator("html")).toHaveAttribute("data-theme", theme);
  if (theme !== "system" && !within) {
    const lightness = await paintedLightness(page);
    if (theme === "dark") expect(lightness, "the dark theme paints a dark page").toBeLessThan(0.2);
    else expect(lightness, "the light theme paints a light page").toBeGreaterThan(0.9);
  }
  const blocking = await blockingViolations(page, within);
  const report = blocking
    .flatMap((v) =>
      v.nodes.map(
        (n) =>
          `${v.id} (${v.impact}) at ${n.target.join(" ")}: ${(n.failureSummary ?? v.help).replaceAll("\n", " ")}`,
      ),
    )
    .join("\n");
  expect(blocking, `${what}: ${blocking.length} serious or critical violations\n${report}`).toEqual(
    [],
  );
}

for (const theme of THEMES) {
  test.describe(`${theme} theme`, () => {
    for (const visit of DASHBOARD) {
      const what = visit.dialogs
        ? `${visit.name} and its review dialogs have`
        : `${visit.name} has`;
      test(`${what} no serious violations`, async ({ page, baseURL }) => {
        await useTheme(page, baseURL, theme);
        const response = await page.goto(visit.path(stagedTasks()));
        expect(response?.status()).toBe(200);
        await expect(page.getByRole("heading", { level: 1 })).toBeVisible();
        await visit.prepare?.(page);
        await expectAccessible(page, theme, `${visit.name} (${theme})`);
        // The page behind a modal is inert and was just checked: axe looks at the dialog alone.
        for (const d of visit.dialogs ?? []) {
          await test.step(`"${d.name}" open`, async () => {
            await d.trigger(page).click();
            const dialog = page.getByRole("dialog", { name: d.name });
            await expect(dialog).toBeVisible();
            if (d.loaded) await expect(d.loaded(dialog)).toBeVisible();
            await expectAccessible(
              page,
              theme,
              `${visit.name}, "${d.name}" open (${theme})`,
              "dialog[open]",
            );
            await page.keyboard.press("Escape");
            await expect(page.getByRole("dialog")).toHaveCount(0);
          });
        }
      });
    }

    test.describe("signed out", () => {
      test.use(ANONYMOUS);
      test("sign-in has no serious violations", async ({ page, baseURL }) => {
        await useTheme(page, baseURL, theme);
        await page.goto("/sign-in");
        await expect(page.getByRole("heading", { level: 1, name: "Sign in" })).toBeVisible();
        await expectAccessible(page, theme, `sign-in (${theme})`);
      });
    });

    test.describe("on a tablet", () => {
      test.use({ viewport: { width: 820, height: 1180 } });
      for (const path of ["/", "/dead-letters"]) {
        test(`${path} with the sidebar folded and open`, async ({ page, baseURL }) => {
          await useTheme(page, baseURL, theme);
          await page.goto(path);
          const menu = page.getByRole("button", { name: "Menu" });
          await expect(menu).toHaveAttribute("aria-expanded", "false");
          await expect(page.getByRole("navigation", { name: "Main" })).toBeHidden();
          await expectAccessible(page, theme, `${path} folded (${theme})`);
          await menu.click();
          await expect(page.getByRole("navigation", { name: "Main" })).toBeVisible();
          await expectAccessible(page, theme, `${path} open (${theme})`);
        });
      }
    });
  });
}

test.describe("following the system", () => {
  test("a dark system gives the dark palette, and axe agrees", async ({ page }) => {
    await page.emulateMedia({ colorScheme: "dark" });
    await page.goto("/dead-letters");
    await expect(page.locator("html")).toHaveAttribute("data-theme", "system");
    expect(await paintedLightness(page)).toBeLessThan(0.2);
    await expectAccessible(page, "system", "dead letters (system, dark)");
  });
});

test("the check sees colours through the dark palette: a low-contrast line fails it", async ({
  page,
  baseURL,
}) => {
  await useTheme(page, baseURL, "dark");
  await page.goto("/tasks");
  await expect(page.getByRole("heading", { level: 1 })).toBeVisible();
  expect(await blockingViolations(page)).toEqual([]);
  // Two neighbouring shades of the dark palette, as a careless class pair would give.
  await page.getByRole("main").evaluate((main) => {
    const line = document.createElement("p");
    line.id = "low-contrast";
    line.textContent = "Grey on grey";
    line.style.color = "var(--color-slate-600)";
    line.style.backgroundColor = "var(--color-slate-700)";
    main.prepend(line);
  });
  const found = await blockingViolations(page);
  expect(found.map((v) => v.id)).toEqual(["color-contrast"]);
  expect(found[0]?.nodes.map((n) => n.target.join(" "))).toEqual(["#low-contrast"]);
});

// Every page × principal in a real browser: the page (200), the 403 page, or sign-in. The list
// of pages and their scopes comes from the source (each page's pageViewer call), not a copy.
import { ROLE_SCOPES, type Role } from "../../lib/domain/access";
import { expect, test } from "../fixtures";
import { concretePath, hasSamplePath } from "./calls";
import { PRINCIPALS, type Principal } from "./matrix";
import { BASE_URL, type Principals, setUpPrincipals } from "./principals";
import { scanSource } from "./source-scan";

/** Pages anyone may open. */
const PUBLIC_PAGES = ["/sign-in"];

const FORBIDDEN_HEADING = "Your role may not open this page";

const pages = scanSource().pages.filter((p) => !PUBLIC_PAGES.includes(p.route));

type PageOutcome = 200 | 403 | "sign-in";

function expectedFor(scope: string | undefined, principal: Principal): PageOutcome {
  const role = (["ops", "reviewer", "admin"] as const).find((r) => r === principal);
  if (!role) return "sign-in";
  return (ROLE_SCOPES[role as Role] as readonly string[]).includes(scope ?? "") ? 200 : 403;
}

test("every page asks pageViewer for one scope, or is public; every dynamic page has a sample", () => {
  const problems: string[] = [];
  for (const page of pages) {
    if (page.scopes.length !== 1) {
      problems.push(
        `${page.file} calls pageViewer ${page.scopes.length} times; a page asks for exactly one scope`,
      );
    }
    if (!hasSamplePath(page.route)) {
      problems.push(`${page.route} has no sample address in SAMPLE_PATHS (e2e/authz/calls.ts)`);
    }
  }
  expect(problems).toEqual([]);
});

let principals: Principals | undefined;

test.beforeAll(async ({ db }) => {
  principals = await setUpPrincipals(db);
});

function cookiesOf(principal: Principal) {
  if (!principals) throw new Error("the principals were not set up");
  const header = principals.credentials(principal).cookie ?? "";
  return header
    .split("; ")
    .filter(Boolean)
    .map((pair) => {
      const at = pair.indexOf("=");
      return {
        name: pair.slice(0, at),
        value: pair.slice(at + 1),
        domain: "127.0.0.1",
        path: "/",
        httpOnly: true,
        secure: false,
        sameSite: "Lax" as const,
        expires: -1,
      };
    });
}

const BROWSER_PRINCIPALS = PRINCIPALS.filter((p) => !p.startsWith("token"));

// One test per page and a step per principal, the principals' tabs open at once (each its own
// context): every principal is tried even when one fails.
for (const page of pages) {
  test(`page ${page.route} in a browser`, async ({ browser, db }) => {
    test.setTimeout(120_000);
    const path = await concretePath(page.route, db);
    const asPrincipal = async (principal: Principal) => {
      const expected = expectedFor(page.scopes[0], principal);
      await test.step(`as ${principal} → ${expected}`, async () => {
        const context = await browser.newContext({
          baseURL: BASE_URL,
          storageState: { cookies: cookiesOf(principal), origins: [] },
        });
        try {
          const tab = await context.newPage();
          const response = await tab.goto(path, { waitUntil: "domcontentloaded" });
          const soft = expect.configure({ soft: true, message: `as ${principal}` });
          if (expected === "sign-in") {
            await soft(tab).toHaveURL((url) => url.pathname === "/sign-in");
            if (path !== "/") {
              soft(new URL(tab.url()).searchParams.get("next")).toBe(path);
            }
            await soft(tab.getByLabel("Password")).toBeVisible();
            return;
          }
          soft(response?.status()).toBe(expected);
          await soft(tab).toHaveURL((url) => url.pathname === path);
          const heading = tab.getByRole("heading", { level: 1 });
          if (expected === 403) await soft(heading).toHaveText(FORBIDDEN_HEADING);
          else {
            await soft(heading).toBeVisible();
            await soft(heading).not.toHaveText(FORBIDDEN_HEADING);
          }
        } finally {
          await context.close();
        }
      });
    };
    await Promise.all(BROWSER_PRINCIPALS.map(asPrincipal));
  });
}

// Over plain HTTP without a session: anonymous callers and API tokens are sent to sign-in.
const HTTP_PRINCIPALS = PRINCIPALS.filter((p) => p === "anonymous" || p.startsWith("token"));

for (const page of pages) {
  test(`page ${page.route} over HTTP without a session`, async ({ db }) => {
    const path = await concretePath(page.route, db);
    for (const principal of HTTP_PRINCIPALS) {
      await test.step(`as ${principal} → redirect to sign-in`, async () => {
        if (!principals) throw new Error("the principals were not set up");
        const response = await fetch(`${BASE_URL}${path}`, {
          headers: principals.credentials(principal),
          redirect: "manual",
        });
        const soft = expect.configure({ soft: true, message: `as ${principal}` });
        soft(response.status).toBe(307);
        const location = new URL(response.headers.get("location") ?? "", BASE_URL);
        soft(location.pathname).toBe("/sign-in");
        if (path !== "/") soft(location.searchParams.get("next")).toBe(path);
      });
    }
  });
}

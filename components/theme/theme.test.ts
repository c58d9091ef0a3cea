import { describe, expect, it } from "vitest";
import { parseTheme, THEME_COOKIE, themeCookie } from "./theme";

describe("parseTheme", () => {
  it("keeps a known choice", () => {
    expect(parseTheme("dark")).toBe("dark");
    expect(parseTheme("light")).toBe("light");
    expect(parseTheme("system")).toBe("system");
  });

  it("falls back to the system's choice for anything else", () => {
    expect(parseTheme(undefined)).toBe("system");
    expect(parseTheme("")).toBe("system");
    expect(parseTheme("Dark")).toBe("system");
    expect(parseTheme('dark" onload="x')).toBe("system");
  });
});

describe("themeCookie", () => {
  it("is a site-wide, same-site preference cookie", () => {
    expect(themeCookie("dark")).toBe(
      `${THEME_COOKIE}=dark; Path=/; Max-Age=31536000; SameSite=Lax`,
    );
  });
});

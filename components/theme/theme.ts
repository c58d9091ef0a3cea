// The colour theme a person chose, kept in a cookie so the server renders <html data-theme> with
// it and the first paint is already right (no script runs before paint: the CSP allows only
// Next's own scripts). "system" follows the operating system through prefers-color-scheme.
import { z } from "zod";

export const THEMES = ["system", "light", "dark"] as const;
export type Theme = (typeof THEMES)[number];

export const THEME_LABEL: Record<Theme, string> = {
  system: "System",
  light: "Light",
  dark: "Dark",
};

export const THEME_COOKIE = "agent-ledger.theme";

/** A year: a preference, not a session. */
const MAX_AGE_S = 365 * 24 * 60 * 60;

/** Whatever the cookie holds (absent, old, tampered with), the answer is one of THEMES. */
export const themeSchema = z.enum(THEMES).catch("system");

export function parseTheme(value: unknown): Theme {
  return themeSchema.parse(value);
}

/** The Set-Cookie text for document.cookie: readable by the server on every page, sent same-site only. */
export function themeCookie(theme: Theme): string {
  return `${THEME_COOKIE}=${theme}; Path=/; Max-Age=${MAX_AGE_S}; SameSite=Lax`;
}

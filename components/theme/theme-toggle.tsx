"use client";
// System / Light / Dark. The choice shows at once (data-theme on <html>) and is kept in a cookie
// that the server reads for every later page, so it survives reloads and never flashes.
import { useId, useState } from "react";
import { THEME_LABEL, THEMES, type Theme, themeCookie } from "./theme";

/** `sidebar`: on the dark sidebar (which keeps its colours in both themes); `page`: on a page. */
const TONES = {
  sidebar: {
    legend: "text-slate-400",
    group: "border-slate-700",
    option:
      "text-slate-300 hover:bg-slate-800 hover:text-white has-checked:bg-slate-600 has-checked:text-white has-focus-visible:outline-sky-300",
  },
  page: {
    legend: "text-slate-600",
    group: "border-slate-300",
    option:
      "text-slate-700 hover:bg-slate-100 has-checked:bg-slate-800 has-checked:text-white has-focus-visible:outline-sky-500",
  },
} as const;

export function ThemeToggle({
  initial,
  tone,
  className = "",
}: {
  initial: Theme;
  tone: keyof typeof TONES;
  className?: string;
}) {
  const colours = TONES[tone];
  const [theme, setTheme] = useState(initial);
  const name = useId();

  function choose(next: Theme) {
    setTheme(next);
    document.documentElement.dataset.theme = next;
    // biome-ignore lint/suspicious/noDocumentCookie: a preference the server must read on the next request; CookieStore is not in every supported browser
    document.cookie = themeCookie(next);
  }

  return (
    <fieldset className={className}>
      <legend className={`text-xs font-medium ${colours.legend}`}>Theme</legend>
      <div className={`mt-1 inline-flex gap-0.5 rounded-md border p-0.5 ${colours.group}`}>
        {THEMES.map((t) => (
          <label
            key={t}
            className={`relative cursor-pointer rounded px-2 py-1 text-xs font-medium select-none has-focus-visible:outline-2 has-focus-visible:outline-offset-1 ${colours.option}`}
          >
            <input
              type="radio"
              name={name}
              value={t}
              checked={theme === t}
              onChange={() => choose(t)}
              className="absolute inset-0 m-0 size-full cursor-pointer opacity-0"
            />
            {THEME_LABEL[t]}
          </label>
        ))}
      </div>
    </fieldset>
  );
}

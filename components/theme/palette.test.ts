// The dark theme is a palette (app/globals.css redefines Tailwind's colour variables), so its
// contrast can be checked without a browser: every text/background pair the dashboard uses keeps
// WCAG AA (4.5:1) in the dark theme, and the sidebar's fixed palette is exactly the light one.
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

const css = readFileSync(fileURLToPath(new URL("../../app/globals.css", import.meta.url)), "utf8");
const tailwind = readFileSync(
  fileURLToPath(new URL("../../node_modules/tailwindcss/theme.css", import.meta.url)),
  "utf8",
);

function colours(text: string): Map<string, string> {
  return new Map(
    [...text.matchAll(/--color-([a-z]+(?:-\d+)?):\s*([^;]+);/g)].map((m) => [
      m[1] ?? "",
      (m[2] ?? "").trim(),
    ]),
  );
}

function block(after: string): string {
  const start = css.indexOf(after);
  if (start < 0) throw new Error(`no "${after}" in globals.css`);
  return css.slice(start, css.indexOf("}", start));
}

const light = colours(tailwind);
const dark = colours(block("@variant dark {"));
const fixed = colours(block(".palette-fixed {"));

/** Relative luminance of an `oklch(L% C H)`, `#fff` or `#000` value, through linear sRGB. */
function luminance(value: string): number {
  if (value === "#fff") return 1;
  if (value === "#000") return 0;
  const m = value.match(/^oklch\(([\d.]+)% ([\d.]+) ([\d.]+)\)$/);
  if (!m) throw new Error(`not an oklch colour: ${value}`);
  const L = Number(m[1]) / 100;
  const C = Number(m[2]);
  const h = (Number(m[3]) * Math.PI) / 180;
  const a = C * Math.cos(h);
  const b = C * Math.sin(h);
  const l = (L + 0.3963377774 * a + 0.2158037573 * b) ** 3;
  const mm = (L - 0.1055613458 * a - 0.0638541728 * b) ** 3;
  const s = (L - 0.0894841775 * a - 1.291485548 * b) ** 3;
  const clamp = (x: number) => Math.min(1, Math.max(0, x));
  const r = clamp(4.0767416621 * l - 3.3077115913 * mm + 0.2309699292 * s);
  const g = clamp(-1.2684380046 * l + 2.6097574011 * mm - 0.3413193965 * s);
  const bl = clamp(-0.0041960863 * l - 0.7034186147 * mm + 1.707614701 * s);
  return 0.2126 * r + 0.7152 * g + 0.0722 * bl;
}

function contrast(fg: string, bg: string, palette: Map<string, string>): number {
  const value = (name: string) => {
    const v = palette.get(name) ?? light.get(name);
    if (!v) throw new Error(`no colour ${name}`);
    return v;
  };
  const x = luminance(value(fg));
  const y = luminance(value(bg));
  return (Math.max(x, y) + 0.05) / (Math.min(x, y) + 0.05);
}

const SURFACES = ["white", "slate-50", "slate-100"];
/** Text shades used for body text on the page's surfaces (cards, the page, subtle fills). */
const TEXT_ON_SURFACES = [
  "slate-500",
  "slate-600",
  "slate-700",
  "slate-800",
  "slate-900",
  "slate-950",
  "sky-700",
  "sky-800",
  "sky-900",
  "rose-700",
  "rose-800",
  "rose-900",
  "amber-800",
  "amber-900",
  "emerald-700",
  "emerald-800",
  "emerald-900",
  "violet-800",
];
/** [text, background] pairs the components combine on one element (badges, buttons, callouts). */
const PAIRS: [string, string][] = [
  ["amber-950", "amber-50"],
  ["amber-900", "amber-50"],
  ["rose-950", "rose-50"],
  ["rose-900", "rose-50"],
  ["rose-800", "rose-50"],
  ["emerald-950", "emerald-50"],
  ["emerald-900", "emerald-50"],
  ["sky-950", "sky-50"],
  ["sky-900", "sky-50"],
  ["sky-800", "sky-50"],
  ["slate-800", "sky-50"],
  ["white", "slate-900"],
  ["white", "slate-800"],
  ["white", "slate-700"],
  ["white", "slate-600"],
  ["white", "rose-700"],
  ["white", "rose-600"],
  ["white", "sky-700"],
  ["white", "sky-600"],
  ["white", "emerald-700"],
  ["slate-200", "slate-700"],
  ["slate-800", "slate-100"],
];

describe("the dark palette", () => {
  it("keeps AA contrast for text on every surface", () => {
    const low = SURFACES.flatMap((bg) =>
      TEXT_ON_SURFACES.map((fg) => ({ fg, bg, ratio: contrast(fg, bg, dark) })),
    ).filter((p) => p.ratio < 4.5);
    expect(low).toEqual([]);
  });

  it("keeps AA contrast for the pairs used together", () => {
    const low = PAIRS.map(([fg, bg]) => ({ fg, bg, ratio: contrast(fg, bg, dark) })).filter(
      (p) => p.ratio < 4.5,
    );
    expect(low).toEqual([]);
  });

  it("is dark: the page and cards are dark, body text light", () => {
    expect(luminance(dark.get("slate-50") ?? "")).toBeLessThan(0.05);
    expect(luminance(dark.get("white") ?? "")).toBeLessThan(0.05);
    expect(luminance(dark.get("slate-900") ?? "")).toBeGreaterThan(0.8);
    // And the measure tells shades apart: neighbours fail, the light theme's own pair passes.
    expect(contrast("slate-600", "slate-700", dark)).toBeLessThan(2);
    expect(contrast("slate-600", "white", light)).toBeCloseTo(7.56, 1);
  });

  it("redefines every shade of the hues it turns over", () => {
    for (const hue of ["slate", "sky", "rose", "amber", "emerald", "violet", "indigo"]) {
      for (const n of [50, 100, 200, 300, 400, 600, 700, 800, 900, 950]) {
        expect(dark.has(`${hue}-${n}`), `${hue}-${n}`).toBe(true);
      }
    }
  });
});

describe("the sidebar's fixed palette", () => {
  it("is Tailwind's light palette, value for value", () => {
    expect(fixed.size).toBeGreaterThan(30);
    for (const [name, value] of fixed) expect(value, name).toBe(light.get(name));
  });
});

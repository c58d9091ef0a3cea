// The task page's "Open trace" link, rendered as the page renders it: present with the URL the
// query built, opening a new tab without the dashboard's page as opener or referrer; absent
// without one.
import { createElement } from "react";
import { renderToStaticMarkup } from "react-dom/server";
import { describe, expect, it } from "vitest";
import { TraceLink } from "./trace-link";

describe("TraceLink", () => {
  it("links to the trace in a new tab, noopener noreferrer", () => {
    const html = renderToStaticMarkup(
      createElement(TraceLink, { href: "https://tempo.example.com/trace/4bf92f35&x" }),
    );
    expect(html).toContain('href="https://tempo.example.com/trace/4bf92f35&amp;x"');
    expect(html).toContain('rel="noopener noreferrer"');
    expect(html).toContain('target="_blank"');
    expect(html).toContain("Open trace");
  });

  it("renders nothing without a URL", () => {
    expect(renderToStaticMarkup(createElement(TraceLink, { href: null }))).toBe("");
  });
});

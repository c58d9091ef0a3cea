// The archived notice as HTML: the date through Timestamp, the archive id as text, what it means.
import { createElement } from "react";
import { renderToStaticMarkup } from "react-dom/server";
import { describe, expect, it } from "vitest";
import { ArchivedNotice } from "./archived-notice";

describe("ArchivedNotice", () => {
  it("says when and in which archive, and how to verify it", () => {
    const html = renderToStaticMarkup(
      createElement(ArchivedNotice, {
        archived: {
          archiveId: "0b6f1f0e-6a43-4d6b-9e83-1f2b3c4d5e6f",
          at: "2026-01-02T03:04:05.678Z",
          source: "database",
          unavailable: null,
        },
      }),
    );
    expect(html).toContain('<time dateTime="2026-01-02T03:04:05.678Z"');
    expect(html).toContain("2026-01-02 03:04:05 UTC");
    expect(html).toContain("0b6f1f0e-6a43-4d6b-9e83-1f2b3c4d5e6f");
    expect(html).toContain("agent-ledger verify --archive DIR");
    expect(html).toContain("nothing more can be appended");
  });

  it("renders an archive id that looks like markup as text", () => {
    const html = renderToStaticMarkup(
      createElement(ArchivedNotice, {
        archived: {
          archiveId: "<img src=x onerror=alert(1)>",
          at: "2026-01-02T03:04:05Z",
          source: null,
          unavailable: { reason: "not_verified", message: "<script>alert(1)</script> altered" },
        },
      }),
    );
    expect(html).not.toContain("<img");
    expect(html).toContain("&lt;img src=x onerror=alert(1)&gt;");
    expect(html).not.toContain("<script");
    expect(html).toContain("the archive&#x27;s files do not verify (&lt;script&gt;");
  });

  it("says when the entries shown were read from the archive files", () => {
    const html = renderToStaticMarkup(
      createElement(ArchivedNotice, {
        archived: {
          archiveId: "0b6f1f0e-6a43-4d6b-9e83-1f2b3c4d5e6f",
          at: "2026-01-02T03:04:05.678Z",
          source: "files",
          unavailable: null,
        },
      }),
    );
    expect(html).toContain("entries read from the archive files (verified)");
    expect(html).not.toContain("cannot read them");
  });
});

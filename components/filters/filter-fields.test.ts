// The filter fields as HTML: each control is labelled by its id, named for the address, filled
// from it, and the search field is the one `/` goes to.
import { createElement } from "react";
import { renderToStaticMarkup } from "react-dom/server";
import { describe, expect, it } from "vitest";
import { FilterSelect, FilterText } from "./filter-fields";

describe("filter fields", () => {
  it("a select is labelled, named, offers 'any' and selects the address's value", () => {
    const html = renderToStaticMarkup(
      createElement(FilterSelect, {
        id: "dl-age",
        name: "age",
        label: "Dead for",
        value: "gt7d",
        any: "Any time",
        options: [
          { value: "lt1h", label: "Less than an hour" },
          { value: "gt7d", label: "More than a week" },
        ],
      }),
    );
    expect(html).toContain('<label for="dl-age"');
    expect(html).toMatch(/<select id="dl-age" name="age"/);
    expect(html).toContain('<option value="">Any time</option>');
    expect(html).toContain('<option value="gt7d" selected="">More than a week</option>');
    expect(html).not.toContain('<option value="lt1h" selected');
  });

  it("a text field is filled from the address, escaped, and marked for / only when asked", () => {
    const marked = renderToStaticMarkup(
      createElement(FilterText, {
        id: "dl-fingerprint",
        name: "fingerprint",
        label: "Error group",
        value: '<b>"x"</b>',
        search: true,
        width: "w-72",
      }),
    );
    expect(marked).toContain('value="&lt;b&gt;&quot;x&quot;&lt;/b&gt;"');
    expect(marked).toContain('data-kb-search=""');
    expect(marked).toContain("w-72");
    const plain = renderToStaticMarkup(
      createElement(FilterText, {
        id: "dl-agent",
        name: "agent",
        label: "Agent",
        value: undefined,
      }),
    );
    expect(plain).not.toContain("data-kb-search");
    expect(plain).toContain('value=""');
    expect(plain).toContain("w-48");
  });
});

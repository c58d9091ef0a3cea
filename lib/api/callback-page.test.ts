import { createHash } from "node:crypto";
import { describe, expect, it } from "vitest";
import { CALLBACK_PAGE_CSP, callbackPage, html } from "./callback-page";

describe("the callback page", () => {
  it("escapes every interpolated value, and only markup made by html passes as is", () => {
    const name = `"><script>alert('x')</script>&`;
    expect(html`<code>${name}</code>${html`<b>${"<i>"}</b>`}`.html).toBe(
      "<code>&#34;&#62;&#60;script&#62;alert(&#39;x&#39;)&#60;/script&#62;&#38;</code><b>&#60;i&#62;</b>",
    );
  });

  it("allows its own stylesheet by hash and nothing else to load or run", async () => {
    const response = callbackPage(410, "Used <again>", html`<p>Once.</p>`);
    const body = await response.text();
    expect(response.status).toBe(410);
    expect(body).toContain("<title>Used &#60;again&#62;</title>");
    expect(body).toContain("<h1>Used &#60;again&#62;</h1>");
    expect(body).not.toContain("<script");
    const style = /<style>([^<]*)<\/style>/.exec(body)?.[1];
    if (style === undefined) throw new Error("no stylesheet");
    const hash = createHash("sha256").update(style).digest("base64");
    const csp = response.headers.get("content-security-policy");
    expect(csp).toBe(CALLBACK_PAGE_CSP);
    expect(csp).toContain(`style-src 'sha256-${hash}'`);
    expect(csp).toContain("script-src 'none'");
    expect(csp).toContain("form-action 'self'");
    expect(csp).not.toContain("unsafe-inline");
  });
});

import { describe, expect, test } from "vitest";
import { confirmPage, escapeHtml } from "../../src/connections/confirm-page.ts";

describe("the page that asks to confirm a connection", () => {
  test("names chosen on the platforms cannot inject markup", () => {
    const html = confirmPage(
      {
        confirmation: 'abc"><script>',
        expiresIn: 600,
        platform: "youtube",
        publisherAccount: { id: "acct_1", name: "<img src=x onerror=alert(1)>" },
        platformAccount: { id: "UC1", name: `</strong><script>alert("x")</script>` },
      },
      "/oauth/youtube/confirm",
    );
    expect(html).not.toContain("<script>");
    expect(html).not.toContain("<img");
    expect(html).toContain("&#60;script&#62;alert(&#34;x&#34;)&#60;/script&#62;");
    expect(html).toContain('value="abc&#34;&#62;&#60;script&#62;"');
  });

  test("escapes the five characters that matter in content and attributes", () => {
    expect(escapeHtml(`&<>"'`)).toBe("&#38;&#60;&#62;&#34;&#39;");
  });
});

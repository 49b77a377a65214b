import { describe, expect, it } from "vitest";
import { renderEmail } from "#emails/render.server";
import { ResetPassword, resetPasswordSubject } from "#emails/reset-password";
import { VerifyEmail, verifyEmailSubject } from "#emails/verify-email";

const verifyUrl = "http://localhost:3000/verify-email?token=abc_DEF-123";
const resetUrl = "http://localhost:3000/reset-password?token=xyz_789-QRS";

describe("account e-mails", () => {
  const cases = [
    {
      name: "verify",
      url: verifyUrl,
      subject: verifyEmailSubject,
      heading: "Confirm your e-mail address",
      render: (firstName: string) =>
        renderEmail(<VerifyEmail firstName={firstName} verifyUrl={verifyUrl} />),
    },
    {
      name: "reset",
      url: resetUrl,
      subject: resetPasswordSubject,
      heading: "Reset your password",
      render: (firstName: string) =>
        renderEmail(<ResetPassword firstName={firstName} resetUrl={resetUrl} />),
    },
  ];

  for (const { name, url, subject, heading, render } of cases) {
    describe(name, () => {
      const { html, text } = render("Ada");

      it("carries the link in the HTML and in the text", () => {
        expect(html).toContain(`href="${url}"`);
        expect(html).toContain(`>${url}</a>`);
        expect(text).toContain(url);
        expect(text).toContain(heading);
        expect(html).toContain(`<title>${subject}</title>`);
      });

      it("inlines the CSS and keeps only the media queries in the head", () => {
        expect(html.startsWith("<!DOCTYPE html>")).toBe(true);
        expect(html).toMatch(
          /<a class="button" href="[^"]+" style="[^"]*background-color: #30503b/,
        );
        expect(html).toContain("@media (prefers-color-scheme: dark)");
        expect(html).not.toContain(".paragraph {");
        expect(html).toContain("© 2025 Thoughtfully · Produced by a small studio");
        expect(html).toContain("max-width: 600px");
      });

      it("escapes the name and has no scripts or external resources", () => {
        const hostile = render("<script>alert(1)</script>");
        expect(hostile.html).toContain("Hi &lt;script&gt;alert(1)&lt;/script&gt;,");
        expect(hostile.html).not.toContain("<script");
        expect(hostile.html).not.toContain("<link");
        expect(html).not.toContain("<script");
        expect(html).not.toContain("<link");
      });

      it("reads as plain text: wrapped, links in brackets, the raw link once", () => {
        for (const line of text.split("\n")) {
          if (!line.includes(url)) expect(line.length).toBeLessThanOrEqual(78);
        }
        expect(text).toMatch(/\[http:\/\/localhost:3000\//);
        expect(text).not.toContain(`${url}\n[${url}]`);
        expect(text).not.toMatch(/<[a-z]/i);
      });
    });
  }

  it("says how long each link works and what to do if it was not you", () => {
    const verify = renderEmail(<VerifyEmail firstName="Ada" verifyUrl={verifyUrl} />).text;
    expect(verify).toContain("valid for 24 hours");
    expect(verify).toMatch(/did not sign up for Thoughtfully, you can ignore/);
    const reset = renderEmail(<ResetPassword firstName="Ada" resetUrl={resetUrl} />).text;
    expect(reset).toMatch(/valid for one hour and works only once/);
    expect(reset).toMatch(/did not ask to reset your password, you can ignore/);
  });

  it("greets without a name", () => {
    const { text } = renderEmail(<VerifyEmail firstName={null} verifyUrl={verifyUrl} />);
    expect(text).toContain("Hi,");
  });
});

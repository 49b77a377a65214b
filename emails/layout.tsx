import type { ReactNode } from "react";

/**
 * The shell of every e-mail: a centred 600 px table (the one layout every
 * mail app renders alike), the "Thoughtfully" header, the content, and a
 * footer saying why the reader gets this e-mail. The CSS below is inlined by
 * juice (emails/render.server.tsx); only the media queries stay in the head,
 * for the mail apps that honour them (dark mode, narrow screens).
 */
const css = `
body { margin: 0; padding: 0; width: 100%; background-color: #fbf8f3; }
.page { width: 100%; background-color: #fbf8f3; }
.container { width: 100%; max-width: 600px; }
.header { padding: 28px 24px 16px 24px; font-family: Georgia, Cambria, 'Times New Roman', serif; font-size: 22px; font-weight: bold; color: #30503b; text-align: left; }
.card { background-color: #ffffff; border: 1px solid #e2ece5; border-radius: 12px; padding: 32px 28px; font-family: -apple-system, 'Segoe UI', Roboto, Helvetica, Arial, sans-serif; font-size: 16px; line-height: 1.6; color: #292524; }
.title { margin: 0 0 16px 0; font-family: Georgia, Cambria, 'Times New Roman', serif; font-size: 24px; line-height: 1.3; font-weight: bold; color: #1c2e22; }
.paragraph { margin: 0 0 16px 0; }
.button-cell { padding: 8px 0 24px 0; }
.button { display: inline-block; background-color: #30503b; color: #ffffff; font-family: -apple-system, 'Segoe UI', Roboto, Helvetica, Arial, sans-serif; font-size: 16px; font-weight: bold; line-height: 1; text-decoration: none; padding: 14px 24px; border-radius: 9999px; }
.link { color: #30503b; text-decoration: underline; word-break: break-word; }
.muted { margin: 0 0 16px 0; font-size: 14px; color: #57534e; }
.footer { padding: 20px 24px 32px 24px; font-family: -apple-system, 'Segoe UI', Roboto, Helvetica, Arial, sans-serif; font-size: 12px; line-height: 1.5; color: #78716c; text-align: center; }
.footer-line { margin: 0 0 6px 0; }
`;

// Kept in <head> by juice. !important beats the inlined light colours.
const mediaCss = `
@media (prefers-color-scheme: dark) {
  body, .page { background-color: #1c1917 !important; }
  .header { color: #c5d9cb !important; }
  .card { background-color: #292524 !important; border-color: #44403c !important; color: #e7e5e4 !important; }
  .title { color: #f5f5f4 !important; }
  .muted, .footer { color: #a8a29e !important; }
  .link { color: #c5d9cb !important; }
  .button { background-color: #c5d9cb !important; color: #1c2e22 !important; }
}
@media only screen and (max-width: 620px) {
  .card { padding: 24px 18px !important; border-radius: 0 !important; }
}
`;

export function EmailLayout({
  title,
  reason,
  children,
}: {
  /** The document title, usually the subject. */
  title: string;
  /** Why the reader receives this e-mail, shown in the footer. */
  reason: string;
  children: ReactNode;
}) {
  return (
    <html lang="en">
      <head>
        <meta charSet="utf-8" />
        <meta name="viewport" content="width=device-width, initial-scale=1" />
        <meta name="color-scheme" content="light dark" />
        <meta name="supported-color-schemes" content="light dark" />
        <title>{title}</title>
        {/* React would escape the quotes in CSS text children. */}
        {/* biome-ignore lint/security/noDangerouslySetInnerHtml: fixed CSS from this file, never user text */}
        <style dangerouslySetInnerHTML={{ __html: css }} />
        {/* biome-ignore lint/security/noDangerouslySetInnerHtml: fixed CSS from this file, never user text */}
        <style dangerouslySetInnerHTML={{ __html: mediaCss }} />
      </head>
      <body>
        <table
          role="presentation"
          className="page"
          width="100%"
          cellPadding={0}
          cellSpacing={0}
          border={0}
        >
          <tbody>
            <tr>
              <td align="center">
                <table
                  role="presentation"
                  className="container"
                  width="600"
                  cellPadding={0}
                  cellSpacing={0}
                  border={0}
                >
                  <tbody>
                    <tr>
                      <td className="header">Thoughtfully</td>
                    </tr>
                    <tr>
                      <td className="card">{children}</td>
                    </tr>
                    <tr>
                      <td className="footer">
                        <p className="footer-line">{reason}</p>
                        <p className="footer-line">
                          © 2025 Thoughtfully · Produced by a small studio
                        </p>
                      </td>
                    </tr>
                  </tbody>
                </table>
              </td>
            </tr>
          </tbody>
        </table>
      </body>
    </html>
  );
}

/** A call-to-action link styled as a button. */
export function EmailButton({ href, children }: { href: string; children: ReactNode }) {
  return (
    <table role="presentation" cellPadding={0} cellSpacing={0} border={0}>
      <tbody>
        <tr>
          <td className="button-cell">
            <a className="button" href={href}>
              {children}
            </a>
          </td>
        </tr>
      </tbody>
    </table>
  );
}

/** "Hi Ada," or, without a name, "Hi,". The name is text: React escapes it. */
export function greeting(firstName: string | null | undefined) {
  const name = firstName?.trim();
  return name ? `Hi ${name},` : "Hi,";
}

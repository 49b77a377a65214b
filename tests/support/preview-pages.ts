import http from "node:http";
import type { AddressInfo } from "node:net";
import sharp from "sharp";

/**
 * A small web site on loopback for link preview tests (reachable only with
 * LINK_PREVIEW_ALLOW_LOOPBACK): `/article/NAME` describes itself with Open
 * Graph tags and a picture (a 1200×800 PNG with a comment in its metadata,
 * which the stored copy must not keep), `/plain/NAME` with only <title> and
 * a meta description, `/titled/NAME` with a <title> that ends with its site's
 * name ("NAME | Example Gazette"), `/broken…` answers 503, and anything else is a 404.
 */
export const PICTURE_COMMENT = "secret-camera-metadata";

async function picture() {
  return sharp({
    create: { width: 1200, height: 800, channels: 3, background: { r: 40, g: 120, b: 90 } },
  })
    .png()
    .withMetadata({ exif: { IFD0: { ImageDescription: PICTURE_COMMENT } } })
    .toBuffer();
}

const escapeHtml = (value: string) => value.replace(/[&<>"]/g, (c) => `&#${c.charCodeAt(0)};`);

export function articleHtml(name: string) {
  return `<!doctype html><html><head>
<title>${escapeHtml(name)} (plain title)</title>
<meta property="og:title" content="${escapeHtml(name)}: the long read">
<meta property="og:description" content="Everything about ${escapeHtml(name)}, in one page.">
<meta property="og:site_name" content="Example Gazette">
<meta property="og:image" content="/picture/${encodeURIComponent(name)}.png">
</head><body><p>${escapeHtml(name)}</p></body></html>`;
}

export async function startPreviewPages() {
  const png = await picture();
  const requests: string[] = [];
  const server = http.createServer((request, response) => {
    const path = decodeURIComponent(request.url ?? "/");
    requests.push(path);
    if (path.startsWith("/slow/")) {
      // A page that answers only after 2 s: for the timeouts of fetches made while someone waits.
      setTimeout(() => {
        response.writeHead(200, { "Content-Type": "text/html; charset=utf-8" });
        response.end(articleHtml(path.slice("/slow/".length)));
      }, 2_000).unref();
    } else if (path.startsWith("/article/")) {
      response.writeHead(200, { "Content-Type": "text/html; charset=utf-8" });
      response.end(articleHtml(path.slice("/article/".length)));
    } else if (path.startsWith("/plain/")) {
      const name = escapeHtml(path.slice("/plain/".length));
      response.writeHead(200, { "Content-Type": "text/html; charset=utf-8" });
      response.end(
        `<html><head><title>${name} only</title><meta name="description" content="Plain ${name}."></head></html>`,
      );
    } else if (path.startsWith("/titled/")) {
      const name = escapeHtml(path.slice("/titled/".length));
      response.writeHead(200, { "Content-Type": "text/html; charset=utf-8" });
      response.end(
        `<html><head><title>${name} | Example Gazette</title><meta property="og:site_name" content="Example Gazette"></head></html>`,
      );
    } else if (path.startsWith("/picture/")) {
      response.writeHead(200, { "Content-Type": "image/png", "Content-Length": png.length });
      response.end(png);
    } else if (path.startsWith("/broken")) {
      response.writeHead(503, { "Content-Type": "text/plain" });
      response.end("Try later");
    } else {
      response.writeHead(404, { "Content-Type": "text/plain" });
      response.end("Not found");
    }
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    origin,
    requests,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

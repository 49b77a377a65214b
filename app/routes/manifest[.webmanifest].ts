import { UPLOAD_FIELD } from "~/modules/files/upload-kinds";

/**
 * The web app manifest. Once the site is added to an Android phone's home
 * screen, "Share → Thoughtfully" POSTs what was shared to `/add/share`: the
 * page's title, text and URL, and photos (HEIC included: the upload pipeline
 * judges each file), PDFs and Word documents as `files`. Nothing is saved by
 * that POST alone; the signed-in person's Save tap on the page it opens does
 * it (docs/decisions/0196-share-target-takes-files.md). Installs made before
 * keep their GET share to `/add`, which still works.
 */
export const SHARE_ACCEPT = [
  "image/*",
  "image/heic",
  "image/heif",
  ".heic",
  ".heif",
  "application/pdf",
  ".pdf",
  "application/msword",
  ".doc",
  "application/vnd.openxmlformats-officedocument.wordprocessingml.document",
  ".docx",
  "video/mp4",
  "video/quicktime",
  "video/webm",
  ".mp4",
  ".m4v",
  ".mov",
  ".webm",
];

export function loader() {
  const manifest = {
    name: "Thoughtfully",
    short_name: "Thoughtfully",
    description: "Share Thoughtfully. Save now to send later.",
    id: "/",
    start_url: "/",
    scope: "/",
    display: "standalone",
    background_color: "#fbf8f3",
    theme_color: "#30503b",
    icons: [
      { src: "/icons/icon-192.png", sizes: "192x192", type: "image/png" },
      { src: "/icons/icon-512.png", sizes: "512x512", type: "image/png" },
      { src: "/icons/icon-512.png", sizes: "512x512", type: "image/png", purpose: "maskable" },
    ],
    share_target: {
      action: "/add/share",
      method: "POST",
      enctype: "multipart/form-data",
      params: {
        title: "title",
        text: "text",
        url: "url",
        files: [{ name: UPLOAD_FIELD, accept: SHARE_ACCEPT }],
      },
    },
  };
  return new Response(JSON.stringify(manifest, null, 2), {
    headers: {
      "Content-Type": "application/manifest+json; charset=utf-8",
      "Cache-Control": "public, max-age=3600",
    },
  });
}

/**
 * The web app manifest. Once the site is added to a phone's home screen,
 * "Share → Thoughtfully" opens `/add` with the shared page's title, text and
 * URL as query parameters (a GET share target: nothing is posted, and `/add`
 * asks the user to choose a folder before anything is saved).
 */
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
      action: "/add",
      method: "GET",
      params: { title: "title", text: "text", url: "url" },
    },
  };
  return new Response(JSON.stringify(manifest, null, 2), {
    headers: {
      "Content-Type": "application/manifest+json; charset=utf-8",
      "Cache-Control": "public, max-age=3600",
    },
  });
}

import { flatRoutes } from "remix-flat-routes";

/** @type {import('@remix-run/dev').AppConfig} */
export default {
  ignoredRouteFiles: ["**/*"],
  routes: async (defineRoutes) =>
    flatRoutes("routes", defineRoutes, {
      // The benchmarks' own pages (app/routes/bench.*) are in the route tree only of a build
      // made with BENCH=1, which bench/dashboard.ts makes; every other build, production's
      // included, leaves them out.
      ignoredRouteFiles: [
        ".*",
        "**/*.css",
        "**/*.test.{js,jsx,ts,tsx}",
        "**/__*.*",
        ...(process.env.BENCH === "1" ? [] : ["bench.*"]),
      ],
    }),
  serverModuleFormat: "esm",
  // drizzle-orm is hundreds of ES modules whose package.json (180 KB of exports) Node 24 reads
  // again for each one: bundled, they load in a tenth of the time (docs/performance.md,
  // "bench:cold-start").
  serverDependenciesToBundle: [/^drizzle-orm(\/|$)/],
  serverPlatform: "node",
  // Tailwind CSS 4 runs as a PostCSS plugin (postcss.config.js); the compiler's own Tailwind
  // support loads version 3 only.
  tailwind: false,
  postcss: true,
  watchPaths: ["./db/**/*.ts", "./emails/**/*.{ts,tsx}", "./storage/**/*.ts"],
  future: {
    v3_fetcherPersist: true,
    v3_relativeSplatPath: true,
    v3_throwAbortReason: true,
    v3_lazyRouteDiscovery: false,
    v3_singleFetch: true,
  },
};

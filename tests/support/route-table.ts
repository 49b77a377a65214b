import path from "node:path";
import { pathToFileURL } from "node:url";
import type { AppConfig } from "@remix-run/dev";
import { defineRoutes } from "@remix-run/dev/dist/config/routes.js";
import { repoRoot } from "./app-server";

export type RouteEntry = { id: string; path: string; params: string[] };

/**
 * The route table as `remix build` makes it (remix.config.js, remix-flat-routes
 * naming), each route with its whole path (`/folders/:folderId/items/:itemId/edit`)
 * and the names of its dynamic segments. Run from the repository's root.
 */
export async function routeTable(): Promise<RouteEntry[]> {
  const configUrl = pathToFileURL(path.join(repoRoot, "remix.config.js")).href;
  const config: AppConfig = (await import(configUrl)).default;
  const manifest = await config.routes!(defineRoutes);
  const fullPath = (id: string | undefined): string => {
    const route = id ? manifest[id] : undefined;
    if (!route) return "";
    return [fullPath(route.parentId), route.path ?? ""].filter(Boolean).join("/");
  };
  return Object.values(manifest).map((route) => {
    const whole = fullPath(route.id);
    return {
      id: route.id,
      path: `/${whole}`,
      params: (whole.match(/:[^/]+/g) ?? []).map((param) => param.slice(1)),
    };
  });
}

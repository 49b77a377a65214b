import type { ActionFunctionArgs, LoaderFunctionArgs, MetaFunction } from "@remix-run/node";
import { Outlet, useLoaderData } from "@remix-run/react";
import { z } from "zod";
import { DashboardPage } from "~/components/dashboard";
import { isBannerDismissed } from "~/modules/accounts/preferences.server";
import { requireUser } from "~/modules/accounts/session.server";
import { loadDashboard } from "~/modules/folders/dashboard.server";
import { notFoundOnForeignFolder, parseFolderId } from "~/modules/folders/folder-params.server";
import { FolderRuleError, moveFolder, togglePause } from "~/modules/folders/folders.server";
import { readProtectedForm } from "~/platform/csrf.server";
import { safeRedirectPath } from "~/platform/redirect";
import { redirectWithToast, withFailureToast } from "~/platform/toast.server";

export const meta: MetaFunction<typeof loader> = ({ data }) => [
  { title: `${data?.selected?.name ?? "Folder"} · Thoughtfully` },
];

export async function loader({ request, params }: LoaderFunctionArgs) {
  const user = await requireUser(request);
  const folderId = parseFolderId(params.folderId);
  const page = Number(new URL(request.url).searchParams.get("page") ?? "1");
  const dashboard = notFoundOnForeignFolder(() => loadDashboard(user, folderId, page));
  return { ...dashboard, bannerDismissed: await isBannerDismissed(request, user) };
}

const FolderActionSchema = z.object({
  intent: z.enum(["toggle-pause", "move-up", "move-down"]),
  returnTo: z.string().optional(),
});

export async function action({ request, params }: ActionFunctionArgs) {
  const user = await requireUser(request);
  const folderId = parseFolderId(params.folderId);
  const formData = await readProtectedForm(request);
  const parsed = FolderActionSchema.safeParse(Object.fromEntries(formData));
  if (!parsed.success) throw new Response("Bad Request", { status: 400 });
  const { intent, returnTo } = parsed.data;
  const back = safeRedirectPath(returnTo, `/folders/${folderId}`);
  const failure =
    intent === "toggle-pause" ? "Failed to update folder status" : "Failed to reorder folder";
  return withFailureToast(
    back,
    failure,
    () =>
      notFoundOnForeignFolder(() => {
        if (intent === "toggle-pause") {
          const folder = togglePause(user.id, folderId);
          return redirectWithToast(back, {
            title: folder.isPaused ? "Delivery paused" : "Delivery resumed",
            description: folder.isPaused
              ? `"${folder.name}" will not be sent until you resume it.`
              : `"${folder.name}" will be sent on schedule again.`,
          });
        }
        moveFolder(user.id, folderId, intent === "move-up" ? "up" : "down");
        return redirectWithToast(back, { title: "Folder moved" });
      }),
    [FolderRuleError],
  );
}

export default function FolderRoute() {
  const data = useLoaderData<typeof loader>();
  return (
    <DashboardPage data={data}>
      <Outlet />
    </DashboardPage>
  );
}

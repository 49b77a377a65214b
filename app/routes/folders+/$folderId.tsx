import { parseWithZod } from "@conform-to/zod/v4";
import type { ActionFunctionArgs, LoaderFunctionArgs, MetaFunction } from "@remix-run/node";
import { useLoaderData, useOutlet } from "@remix-run/react";
import { DashboardPage } from "~/components/folders/dashboard";
import { ReloadWithoutScriptWhile } from "~/components/items/pending-previews";
import { readProtectedForm } from "~/modules/auth/csrf.server";
import { requireUser } from "~/modules/auth/session.server";
import { loadDashboardPage } from "~/modules/dashboard/dashboard.server";
import { parseFolderId } from "~/modules/folders/folder-params.server";
import { moveFolder, togglePause } from "~/modules/folders/folders.server";
import { skipNextIssue, undoSkip } from "~/modules/folders/skip.server";
import { invariantResponse, orNotFound } from "~/platform/errors.server";
import { safeRedirectPath } from "~/platform/redirect";
import { redirectWithToast, withFailureToast } from "~/platform/toast.server";
import { z } from "~/platform/zod";

export const meta: MetaFunction<typeof loader> = ({ data }) => [
  { title: `${data?.selected?.name ?? "Folder"} · Thoughtfully` },
];

export async function loader({ request, params }: LoaderFunctionArgs) {
  const user = await requireUser(request);
  const folderId = parseFolderId(params.folderId);
  const page = Number(new URL(request.url).searchParams.get("page") ?? "1");
  return orNotFound(() => loadDashboardPage(request, user, folderId, page));
}

const FolderActionSchema = z.object({
  intent: z.enum(["toggle-pause", "move-up", "move-down", "skip-next", "undo-skip"]),
  returnTo: z.string().optional(),
});

const FAILURES = {
  "toggle-pause": "Failed to update folder status",
  "move-up": "Failed to reorder folder",
  "move-down": "Failed to reorder folder",
  "skip-next": "The issue was not skipped",
  "undo-skip": "The skip was not undone",
} as const;

export async function action({ request, params }: ActionFunctionArgs) {
  const user = await requireUser(request);
  const folderId = parseFolderId(params.folderId);
  const submission = parseWithZod(await readProtectedForm(request), {
    schema: FolderActionSchema,
  });
  invariantResponse(submission.status === "success", "Bad Request", 400);
  const { intent, returnTo } = submission.value;
  const back = safeRedirectPath(returnTo, `/folders/${folderId}`);
  const failure = FAILURES[intent];
  return withFailureToast(back, failure, () =>
    orNotFound(() => {
      if (intent === "skip-next") {
        const { folder, skippedLabel, nextLabel } = skipNextIssue(user.id, folderId);
        return redirectWithToast(back, {
          title: `${skippedLabel} skipped`,
          description: `The next issue of "${folder.name}" goes on ${nextLabel}.`,
        });
      }
      if (intent === "undo-skip") {
        const { folder, nextLabel } = undoSkip(user.id, folderId);
        return redirectWithToast(back, {
          title: "Skip undone",
          description: `The next issue of "${folder.name}" goes on ${nextLabel} again.`,
        });
      }
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
  );
}

export default function FolderRoute() {
  const data = useLoaderData<typeof loader>();
  const dialog = useOutlet();
  return (
    <DashboardPage data={data}>
      {dialog}
      <ReloadWithoutScriptWhile
        preparing={!dialog && data.items.some((item) => "videoPreparing" in item)}
      />
    </DashboardPage>
  );
}

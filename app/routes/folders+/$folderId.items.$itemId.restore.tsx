import { type ActionFunctionArgs, redirect } from "@remix-run/node";
import { readProtectedForm } from "~/utils/csrf.server";
import { parseFolderId } from "~/utils/folder-params.server";
import { parseItemId } from "~/utils/item-routes.server";
import { restoreDeletedItem } from "~/utils/item-undo.server";
import { requireUser } from "~/utils/session.server";
import { redirectWithToast } from "~/utils/toast.server";

export async function loader({ params }: ActionFunctionArgs) {
  return redirect(`/folders/${parseFolderId(params.folderId)}`);
}

/** Undo of an item's deletion (the "Item deleted" toast's button). */
export async function action({ request, params }: ActionFunctionArgs) {
  const user = await requireUser(request);
  const folderId = parseFolderId(params.folderId);
  const itemId = parseItemId(params.itemId);
  await readProtectedForm(request);
  const item = restoreDeletedItem(user.id, folderId, itemId);
  if (!item) {
    return redirectWithToast(`/folders/${folderId}`, {
      title: "Too late to undo",
      description: "That item is gone for good.",
      variant: "destructive",
    });
  }
  return redirectWithToast(`/folders/${folderId}#item-${item.id}`, {
    title: "Item restored",
    description: `"${item.title}" is back in its place.`,
  });
}

import { type ActionFunctionArgs, redirect } from "@remix-run/node";
import { readProtectedForm } from "~/modules/auth/csrf.server";
import { requireUser } from "~/modules/auth/session.server";
import { parseFolderId } from "~/modules/folders/folder-params.server";
import { parseItemId } from "~/modules/items/item-routes.server";
import { restoreDeletedItem } from "~/modules/items/item-undo.server";
import { redirectWithToast } from "~/platform/toast.server";

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

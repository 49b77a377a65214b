import { type ActionFunctionArgs, redirect } from "@remix-run/node";
import { z } from "zod";
import { requireUser } from "~/modules/accounts/session.server";
import { parseFolderId } from "~/modules/folders/folder-params.server";
import { notFoundOnForeignItem, parseItemId } from "~/modules/items/item-routes.server";
import {
  deleteItemUndoably,
  purgeExpiredDeletions,
  UNDO_WINDOW_MS,
} from "~/modules/items/item-undo.server";
import { getItem, ItemRuleError, moveItem, removeItemFile } from "~/modules/items/items.server";
import { removePreview, removePreviewImage } from "~/modules/items/link-previews.server";
import { releaseFiles } from "~/modules/uploads/uploads.server";
import { readProtectedForm } from "~/platform/csrf.server";
import { safeRedirectPath } from "~/platform/redirect";
import { redirectWithToast, withFailureToast } from "~/platform/toast.server";

/**
 * The item list posts one form whose buttons say "move-up:12"; the edit
 * dialog's file forms send `intent` and `itemId` apart.
 */
const ItemActionSchema = z
  .object({
    intent: z.string(),
    itemId: z.string().optional(),
    fileIndex: z.coerce.number().int().optional(),
    returnTo: z.string().optional(),
  })
  .transform(({ intent, itemId, ...rest }) => {
    const [action, inlineId] = intent.split(":");
    return { ...rest, intent: action, itemId: inlineId ?? itemId };
  })
  .pipe(
    z.object({
      intent: z.enum([
        "move-up",
        "move-down",
        "delete",
        "remove-file",
        "remove-preview-image",
        "remove-preview",
      ]),
      itemId: z.string(),
      fileIndex: z.number().int().optional(),
      returnTo: z.string().optional(),
    }),
  );

export async function loader({ params }: ActionFunctionArgs) {
  return redirect(`/folders/${parseFolderId(params.folderId)}`);
}

/** Reorder, delete, remove one file or a link's preview: from the item list and the edit dialog. */
export async function action({ request, params }: ActionFunctionArgs) {
  const user = await requireUser(request);
  const folderId = parseFolderId(params.folderId);
  const formData = await readProtectedForm(request);
  const parsed = ItemActionSchema.safeParse(Object.fromEntries(formData));
  if (!parsed.success) throw new Response("Bad Request", { status: 400 });
  const { intent, fileIndex, returnTo } = parsed.data;
  const itemId = parseItemId(parsed.data.itemId);
  const { item } = notFoundOnForeignItem(() => getItem(user.id, itemId));
  if (item.folderId !== folderId) throw new Response("Not Found", { status: 404 });
  const back = safeRedirectPath(returnTo, `/folders/${folderId}`);

  if (intent === "delete") {
    return withFailureToast(back, "Failed to delete item", async () => {
      deleteItemUndoably(user.id, itemId);
      await purgeExpiredDeletions();
      return redirectWithToast(back, {
        title: "Item deleted",
        description: `"${item.title}" can be put back for ${UNDO_WINDOW_MS / 60_000} minutes.`,
        action: { label: "Undo", formAction: `/folders/${folderId}/items/${itemId}/restore` },
      });
    });
  }
  if (intent === "remove-file") {
    return withFailureToast(
      back,
      `Failed to update ${item.type}`,
      async () => {
        await releaseFiles(removeItemFile(user.id, itemId, fileIndex ?? -1));
        return redirectWithToast(back, { title: "File removed" });
      },
      [ItemRuleError],
    );
  }
  if (intent === "remove-preview-image" || intent === "remove-preview") {
    return withFailureToast(
      `${back}#item-${itemId}`,
      "Failed to update link",
      async () => {
        const key =
          intent === "remove-preview"
            ? removePreview(user.id, itemId)
            : removePreviewImage(user.id, itemId);
        if (key) await releaseFiles([key]);
        return redirectWithToast(`${back}#item-${itemId}`, {
          title: intent === "remove-preview" ? "Preview removed" : "Preview picture removed",
        });
      },
      [ItemRuleError],
    );
  }
  return withFailureToast(back, "Failed to reorder item", () => {
    moveItem(user.id, itemId, intent === "move-up" ? "up" : "down");
    // Without JavaScript the page reloads: the anchor brings the moved item back into view.
    return redirectWithToast(`${back}#item-${itemId}`, { title: "Item moved" });
  });
}

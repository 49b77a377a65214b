import { type ActionFunctionArgs, redirect } from "@remix-run/node";
import { readProtectedForm } from "~/modules/auth/csrf.server";
import { requireUser } from "~/modules/auth/session.server";
import { parseFolderId } from "~/modules/folders/folder-params.server";
import { getItem } from "~/modules/items/item-rules.server";
import {
  deleteItemUndoably,
  purgeExpiredDeletions,
  UNDO_WINDOW_MS,
} from "~/modules/items/item-undo.server";
import { moveItem, removeItemFile } from "~/modules/items/items.server";
import { removePreview, removePreviewImage } from "~/modules/items/link-previews.server";
import { invariantResponse, orNotFound } from "~/platform/errors.server";
import { parseIntentForm } from "~/platform/intent.server";
import { safeRedirectPath } from "~/platform/redirect";
import { redirectWithToast, withFailureToast } from "~/platform/toast.server";
import { z } from "~/platform/zod";

const ItemTarget = {
  itemId: z.coerce.number().int().positive(),
  returnTo: z.string().optional(),
};

/**
 * One form per intent. The item list's buttons carry the item in the address
 * (`?itemId=12`, as each button's formaction) and the edit dialog's file
 * forms in a field; both arrive here as `itemId`.
 */
const ItemActionSchema = z.discriminatedUnion("intent", [
  z.object({ intent: z.literal("move-up"), ...ItemTarget }),
  z.object({ intent: z.literal("move-down"), ...ItemTarget }),
  z.object({ intent: z.literal("delete"), ...ItemTarget }),
  z.object({ intent: z.literal("remove-preview-image"), ...ItemTarget }),
  z.object({ intent: z.literal("remove-preview"), ...ItemTarget }),
  z.object({
    intent: z.literal("remove-file"),
    ...ItemTarget,
    fileIndex: z.coerce.number().int().nonnegative(),
  }),
]);

export async function loader({ params }: ActionFunctionArgs) {
  return redirect(`/folders/${parseFolderId(params.folderId)}`);
}

/** Reorder, delete, remove one file or a link's preview: from the item list and the edit dialog. */
export async function action({ request, params }: ActionFunctionArgs) {
  const user = await requireUser(request);
  const folderId = parseFolderId(params.folderId);
  const formData = await readProtectedForm(request);
  // The item list's buttons name their item in the formaction's query (docs/decisions/0074-one-error-vocabulary.md).
  const addressed = new URL(request.url).searchParams.get("itemId");
  if (addressed !== null) formData.set("itemId", addressed);
  const parsed = parseIntentForm(formData, ItemActionSchema);
  invariantResponse(parsed.status === "success", "Bad Request", 400);
  const submission = parsed.value;
  const { itemId } = submission;
  const { item } = orNotFound(() => getItem(user.id, itemId));
  invariantResponse(item.folderId === folderId);
  const back = safeRedirectPath(submission.returnTo, `/folders/${folderId}`);

  switch (submission.intent) {
    case "delete":
      return withFailureToast(back, "Failed to delete item", async () => {
        deleteItemUndoably(user.id, itemId);
        await purgeExpiredDeletions();
        return redirectWithToast(back, {
          title: "Item deleted",
          description: `"${item.title}" can be put back for ${UNDO_WINDOW_MS / 60_000} minutes.`,
          action: { label: "Undo", formAction: `/folders/${folderId}/items/${itemId}/restore` },
        });
      });
    case "remove-file":
      return withFailureToast(back, `Failed to update ${item.type}`, async () => {
        await removeItemFile(user.id, itemId, submission.fileIndex);
        return redirectWithToast(back, { title: "File removed" });
      });
    case "remove-preview-image":
    case "remove-preview": {
      const removeAll = submission.intent === "remove-preview";
      return withFailureToast(`${back}#item-${itemId}`, "Failed to update link", async () => {
        await (removeAll ? removePreview(user.id, itemId) : removePreviewImage(user.id, itemId));
        return redirectWithToast(`${back}#item-${itemId}`, {
          title: removeAll ? "Preview removed" : "Preview picture removed",
        });
      });
    }
    case "move-up":
    case "move-down": {
      const direction = submission.intent === "move-up" ? "up" : "down";
      return withFailureToast(back, "Failed to reorder item", () => {
        moveItem(user.id, itemId, direction);
        // Without JavaScript the page reloads: the anchor brings the moved item back into view.
        return redirectWithToast(`${back}#item-${itemId}`, { title: "Item moved" });
      });
    }
  }
}

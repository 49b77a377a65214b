import { parseWithZod } from "@conform-to/zod/v4";
import {
  type ActionFunctionArgs,
  data,
  type LoaderFunctionArgs,
  type MetaFunction,
} from "@remix-run/node";
import { useActionData, useLoaderData } from "@remix-run/react";
import { ItemForm } from "~/components/items/item-form";
import { Dialog } from "~/components/ui/dialog";
import { readProtectedForm } from "~/modules/auth/csrf.server";
import { parseFolderId } from "~/modules/folders/folder-params.server";
import { getFolder, recipientsOf } from "~/modules/folders/folders.server";
import {
  addedToast,
  captureForm,
  captureQuery,
  readCapture,
  requireAddUser,
  titleToSave,
} from "~/modules/items/capture.server";
import { titleForLink } from "~/modules/items/item-titles.server";
import { QuickLinkSchema } from "~/modules/items/item-validation";
import { createTextItem, itemAddress } from "~/modules/items/items.server";
import { needsNote } from "~/modules/items/needs-note";
import { orNotFound, RuleError } from "~/platform/errors.server";
import { redirectWithToast } from "~/platform/toast.server";

/**
 * Add Link, prefilled with what the browser captured, as a dialog over
 * `/add`. The capture rides along in the query string, so Cancel, a failed
 * submission and the success toast all know about it. A quick save: the
 * title and the note may wait (docs/decisions/0134-quick-saves-wait-for-a-note.md).
 * Saved, it opens on its card in the folder.
 */
export const meta: MetaFunction = () => [{ title: "Add Link · Thoughtfully" }];

export async function loader({ request, params }: LoaderFunctionArgs) {
  const user = await requireAddUser(request);
  const folder = orNotFound(() => getFolder(user.id, parseFolderId(params.folderId)));
  const capture = readCapture(new URL(request.url).searchParams);
  const { defaultValue, lastResult } = captureForm(capture);
  return {
    folderName: folder.name,
    recipientNames: recipientsOf(folder).map((recipient) => recipient.name),
    defaultValue,
    prefillResult: lastResult,
    back: `/add${captureQuery(capture)}`,
  };
}

export async function action({ request, params }: ActionFunctionArgs) {
  const user = await requireAddUser(request);
  const folderId = parseFolderId(params.folderId);
  orNotFound(() => getFolder(user.id, folderId));
  const formData = await readProtectedForm(request);
  const submission = parseWithZod(formData, { schema: QuickLinkSchema });
  if (submission.status !== "success") {
    return data({ result: submission.reply() }, { status: submission.status ? 400 : 200 });
  }
  const input = submission.value;
  const capture = readCapture(new URL(request.url).searchParams);
  let created: ReturnType<typeof createTextItem>;
  try {
    created = createTextItem(user.id, folderId, {
      ...input,
      title: await titleForLink(user.id, titleToSave(capture, input), input.urls),
    });
  } catch (error) {
    if (!(error instanceof RuleError)) throw error;
    return data({ result: submission.reply({ formErrors: [error.message] }) }, { status: 400 });
  }
  // On the item, as every save lands (docs/decisions/0138-a-save-lands-on-its-item.md).
  return redirectWithToast(itemAddress(created), addedToast(capture, needsNote(created)));
}

export default function AddToFolder() {
  const { folderName, recipientNames, defaultValue, prefillResult, back } =
    useLoaderData<typeof loader>();
  const actionData = useActionData<typeof action>();
  return (
    <Dialog title={`Add Link to ${folderName}`} closeTo={back}>
      <ItemForm
        type="link"
        mode="add"
        lastResult={actionData?.result ?? prefillResult}
        defaultValue={defaultValue}
        recipientNames={recipientNames}
        cancelTo={back}
        quickSave
      />
    </Dialog>
  );
}

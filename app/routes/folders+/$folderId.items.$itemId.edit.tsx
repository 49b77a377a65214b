import { parseWithZod } from "@conform-to/zod/v4";
import {
  type ActionFunctionArgs,
  data,
  type LoaderFunctionArgs,
  type MetaFunction,
} from "@remix-run/node";
import { Form, useActionData, useLoaderData } from "@remix-run/react";
import { DialogErrorBoundary } from "~/components/errors/error-boundary";
import { ItemForm } from "~/components/items/item-form";
import { Dialog } from "~/components/ui/dialog";
import { CsrfInput } from "~/components/ui/forms";
import { readProtectedForm } from "~/modules/auth/csrf.server";
import { requireUser } from "~/modules/auth/session.server";
import { UPLOAD_BODY_MAX_BYTES } from "~/modules/files/upload-kinds";
import { parseFolderId } from "~/modules/folders/folder-params.server";
import { recipientsOf, uploadCapacity } from "~/modules/folders/folders.server";
import {
  parseItemId,
  refusedUploadReply,
  typedValues,
  unexpectedSaveProblem,
  uploadProblemFor,
} from "~/modules/items/item-routes.server";
import { getItem } from "~/modules/items/item-rules.server";
import type { ItemFormValues } from "~/modules/items/item-validation";
import { schemaFor } from "~/modules/items/item-validation";
import { saveItem } from "~/modules/items/save-item.server";
import { maxFilesFor } from "~/modules/uploads/file-checks";
import { withUpload } from "~/modules/uploads/uploads.server";
import { invariantResponse, orNotFound } from "~/platform/errors.server";
import { replayWritesToPrimary } from "~/platform/replication.server";
import type { RouteBodyLimit } from "~/platform/route-body-limit";
import { redirectWithToast } from "~/platform/toast.server";
import { formatBytes } from "~/utils/format";

const TITLES = {
  link: "Edit Link",
  musing: "Edit Item",
  photo: "Edit Photo",
  file: "Edit File",
  video: "Edit Video",
};

export const meta: MetaFunction = () => [{ title: "Edit · Thoughtfully" }];

async function loadOwnItem(request: Request, params: LoaderFunctionArgs["params"]) {
  const user = await requireUser(request);
  const folderId = parseFolderId(params.folderId);
  const found = orNotFound(() => getItem(user.id, parseItemId(params.itemId)));
  invariantResponse(found.folder.id === folderId);
  return { user, ...found };
}

export async function loader({ request, params }: LoaderFunctionArgs) {
  const { item, folder } = await loadOwnItem(request, params);
  const values: ItemFormValues = {
    title: item.title,
    urls: item.urls.length > 0 ? item.urls : [""],
    note: item.note ?? "",
    addComment: item.addComment,
    askQuestion: item.askQuestion,
    commentText: item.commentText ?? "",
    questionText: item.questionText ?? "",
    responseExpectation:
      item.responseExpectation === "expecting"
        ? "yes"
        : item.responseExpectation === "not_expecting"
          ? "none"
          : "na",
  };
  return {
    folderId: folder.id,
    itemId: item.id,
    type: item.type,
    values,
    files: item.fileNames.map((name, index) => ({
      // Unique, unlike name and size; the item list shows the same keys.
      key: item.filePaths[index] ?? `${index}`,
      name,
      size: item.fileSizes[index] ?? 0,
    })),
    recipientNames: recipientsOf(folder).map((recipient) => recipient.name),
    capacity: item.type === "photo" || item.type === "file" ? uploadCapacity(folder) : null,
  };
}

/** Uploads stream up to a full item's files (docs/decisions/0101-body-limits-by-route.md); any other body is a form. */
export const bodyLimit: RouteBodyLimit = { multipart: UPLOAD_BODY_MAX_BYTES };

export async function action({ request, params }: ActionFunctionArgs) {
  await replayWritesToPrimary(request);
  const { user, item } = await loadOwnItem(request, params);
  if (item.type === "link" || item.type === "musing") {
    const formData = await readProtectedForm(request);
    const submission = parseWithZod(formData, { schema: schemaFor(item.type) });
    if (submission.status !== "success") {
      return data(
        { result: submission.reply(), problem: null },
        { status: submission.status ? 400 : 200 },
      );
    }
    let saved: { location: string };
    try {
      saved = await orNotFound(() => saveItem(user.id, { itemId: item.id }, submission.value));
    } catch (error) {
      const { problem, status } = unexpectedSaveProblem(error, "update", item.type);
      return data({ result: submission.reply(), problem }, { status });
    }
    return redirectWithToast(saved.location, { title: "Changes saved" });
  }

  const room = maxFilesFor(item.type) - item.filePaths.length;
  const upload = { kind: item.type, userId: user.id, maxFiles: Math.max(room, 0), csrf: true };
  return withUpload(request, upload, async ({ formData, stored }) => {
    let saved: { location: string };
    try {
      const submission = parseWithZod(formData, { schema: schemaFor(item.type) });
      if (submission.status !== "success") {
        return data({ result: submission.reply(), problem: null }, { status: 400 });
      }
      // New files upload first, then the item's changes save (docs/product-rules.md, Folders and items).
      saved = await saveItem(user.id, { itemId: item.id }, submission.value, stored);
    } catch (error) {
      const mapped = uploadProblemFor(error) ?? unexpectedSaveProblem(error, "update", item.type);
      return data(
        { result: typedValues(formData, item.type), problem: mapped.problem },
        { status: mapped.status },
      );
    }
    return redirectWithToast(saved.location, { title: "Changes saved" });
  }).catch((error: unknown) => refusedUploadReply(error, item.type));
}

export default function EditItem() {
  const { folderId, itemId, type, values, files, recipientNames, capacity } =
    useLoaderData<typeof loader>();
  const actionData = useActionData<typeof action>();
  return (
    <Dialog title={TITLES[type]} closeTo={`/folders/${folderId}`}>
      {files.length > 0 ? (
        <section aria-label="Current files" className="mb-4">
          <h3 className="text-sm font-medium text-stone-800">Current files</h3>
          <ul className="mt-2 divide-y divide-stone-200 rounded-lg border border-stone-200">
            {files.map((file, index) => (
              <li
                key={file.key}
                className="flex items-center justify-between gap-2 px-3 py-2 text-sm"
              >
                <span className="min-w-0 truncate">
                  {file.name} <span className="text-stone-500">({formatBytes(file.size)})</span>
                </span>
                {files.length > 1 ? (
                  <Form method="post" action={`/folders/${folderId}/item-actions`}>
                    <CsrfInput />
                    <input type="hidden" name="itemId" value={itemId} />
                    <input type="hidden" name="fileIndex" value={index} />
                    <input
                      type="hidden"
                      name="returnTo"
                      value={`/folders/${folderId}/items/${itemId}/edit`}
                    />
                    <button
                      type="submit"
                      name="intent"
                      value="remove-file"
                      className="rounded-md px-2 py-1 text-xs font-medium text-red-700 hover:bg-red-50"
                      aria-label={`Remove ${file.name}`}
                    >
                      Remove
                    </button>
                  </Form>
                ) : null}
              </li>
            ))}
          </ul>
        </section>
      ) : null}
      <ItemForm
        key={itemId}
        type={type}
        mode="edit"
        lastResult={actionData?.result}
        uploadProblem={actionData?.problem}
        defaultValue={values}
        recipientNames={recipientNames}
        cancelTo={`/folders/${folderId}`}
        currentFileCount={files.length}
        capacity={capacity}
      />
    </Dialog>
  );
}

export function ErrorBoundary() {
  return <DialogErrorBoundary />;
}

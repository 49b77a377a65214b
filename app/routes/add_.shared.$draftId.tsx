import {
  type ActionFunctionArgs,
  data,
  type LoaderFunctionArgs,
  type MetaFunction,
} from "@remix-run/node";
import { Form, Link, useActionData, useLoaderData } from "@remix-run/react";
import { AppShell } from "~/components/layout/app-shell";
import { CsrfInput, ErrorList, Field, FormAlert, SubmitButton } from "~/components/ui/forms";
import { readProtectedForm } from "~/modules/auth/csrf.server";
import { requireAddUser } from "~/modules/items/capture.server";
import { uploadProblemFor } from "~/modules/items/item-routes.server";
import { itemAddress } from "~/modules/items/items.server";
import { needsNote, WAITS_FOR_NOTE } from "~/modules/items/needs-note";
import {
  discardSharedDraft,
  lastUsedFolderId,
  SharedShareSchema,
  saveSharedDraft,
  sharedDraft,
  shareFolderChoices,
} from "~/modules/uploads/share-target.server";
import { orNotFound } from "~/platform/errors.server";
import { parseIntentForm } from "~/platform/intent.server";
import { replayWritesToPrimary } from "~/platform/replication.server";
import { redirectWithToast } from "~/platform/toast.server";
import { formatBytes, pluralize } from "~/utils/format";

/**
 * What the phone shared (add+/share.ts kept its files in a draft), one tap
 * from saved: the folder last added to is chosen already, the title and note
 * are filled in from the share, and Save makes the item and opens it in its
 * folder, highlighted. A quick save: the note may wait
 * (docs/decisions/0134-quick-saves-wait-for-a-note.md,
 * docs/decisions/0196-share-target-takes-files.md).
 */
export const meta: MetaFunction = () => [{ title: "Save what you shared · Thoughtfully" }];

export async function loader({ request, params }: LoaderFunctionArgs) {
  const user = await requireAddUser(request);
  const draft = orNotFound(() => sharedDraft(user.id, params.draftId ?? ""));
  return {
    type: draft.type,
    files: draft.files.map((file) => ({ name: file.name, size: formatBytes(file.size) })),
    title: draft.details.title,
    note: draft.details.commentText ?? "",
    folders: shareFolderChoices(user.id),
    chosenFolderId: lastUsedFolderId(user.id),
    newFolderPath: `/folders/new?${new URLSearchParams({ returnTo: `/add/shared/${draft.id}` })}`,
  };
}

export async function action({ request, params }: ActionFunctionArgs) {
  await replayWritesToPrimary(request);
  const user = await requireAddUser(request);
  const draftId = params.draftId ?? "";
  orNotFound(() => sharedDraft(user.id, draftId));
  const formData = await readProtectedForm(request);
  const submission = parseIntentForm(formData, SharedShareSchema);
  if (submission.status !== "success") {
    return data({ result: submission.reply() }, { status: 400 });
  }
  if (submission.value.intent === "discard") {
    await discardSharedDraft(user.id, draftId);
    return redirectWithToast("/add", { title: "Nothing was saved" });
  }
  const { intent: _save, ...save } = submission.value;
  let created: Awaited<ReturnType<typeof saveSharedDraft>>;
  try {
    created = await orNotFound(() => saveSharedDraft(user.id, draftId, save));
  } catch (error) {
    const mapped = uploadProblemFor(error);
    if (!mapped) throw error;
    const message = `${mapped.problem.title}: ${mapped.problem.description}`;
    return data({ result: submission.reply({ formErrors: [message] }) }, { status: mapped.status });
  }
  return redirectWithToast(itemAddress(created), {
    title: "Content added successfully!",
    ...(needsNote(created) ? { description: WAITS_FOR_NOTE } : {}),
  });
}

export default function SaveShared() {
  const { type, files, title, note, folders, chosenFolderId, newFolderPath } =
    useLoaderData<typeof loader>();
  const result = useActionData<typeof action>()?.result;
  const errors = result?.error ?? {};
  const typed = (result?.initialValue ?? {}) as Record<string, string | undefined>;
  const noun = type === "photo" || type === "video" ? type : "file";
  return (
    <AppShell>
      <section className="mx-auto max-w-xl px-4 py-8">
        <h1 className="font-serif text-3xl font-semibold text-stone-900">
          Save {files.length === 1 ? `this ${noun}` : pluralize(files.length, noun)}
        </h1>
        <ul className="mt-3 space-y-1 text-sm text-stone-700">
          {files.map((file) => (
            <li key={file.name} className="break-all">
              {file.name} ({file.size})
            </li>
          ))}
        </ul>

        {folders.length === 0 ? (
          <div className="mt-6 rounded-2xl border border-dashed border-stone-300 bg-white p-6 text-center">
            <p className="text-stone-700">
              You have no folders yet. Create your first one, and you will come straight back here
              to save this.
            </p>
            <Link to={newFolderPath} className="btn-primary mt-4">
              Create your first folder
            </Link>
          </div>
        ) : (
          <Form method="post" className="mt-6 space-y-4" aria-label={`Save the ${noun}`}>
            <CsrfInput />
            <input type="hidden" name="intent" value="save" />
            <FormAlert errors={errors[""]} />
            <div>
              <label htmlFor="folderId" className="block text-sm font-medium text-stone-800">
                Folder
              </label>
              <select
                id="folderId"
                name="folderId"
                defaultValue={typed.folderId ?? String(chosenFolderId ?? "")}
                aria-invalid={errors.folderId ? true : undefined}
                className="mt-1 block min-h-11 w-full rounded-lg border border-stone-300 bg-white px-3 py-2 text-stone-900"
              >
                {folders.map((folder) => (
                  <option key={folder.id} value={folder.id}>
                    {folder.isPaused ? `${folder.name} (paused)` : folder.name}
                  </option>
                ))}
              </select>
              <ErrorList errors={errors.folderId} />
            </div>
            <Field
              label="Title"
              errors={errors.title}
              inputProps={{ name: "title", defaultValue: typed.title ?? title }}
            />
            <div>
              <label htmlFor="note" className="block text-sm font-medium text-stone-800">
                Comment for your recipients
              </label>
              <textarea
                id="note"
                name="note"
                rows={3}
                defaultValue={typed.note ?? note}
                aria-describedby="note-hint"
                className="mt-1 block w-full rounded-lg border border-stone-300 bg-white px-3 py-2 text-stone-900"
              />
              <p id="note-hint" className="mt-1 text-xs text-stone-600">
                Optional now: without one, the {noun} waits in the folder as "Needs a note" and is
                not sent until you add it.
              </p>
              <ErrorList errors={errors.note} />
            </div>
            <SubmitButton pendingText="Saving...">Save</SubmitButton>
          </Form>
        )}
        <Form method="post" className="mt-3">
          <CsrfInput />
          <button type="submit" name="intent" value="discard" className="btn-secondary w-full">
            Cancel
          </button>
        </Form>
      </section>
    </AppShell>
  );
}

import { getFormProps, getTextareaProps, useForm } from "@conform-to/react";
import { parseWithZod } from "@conform-to/zod/v4";
import {
  type ActionFunctionArgs,
  data,
  type LoaderFunctionArgs,
  type MetaFunction,
} from "@remix-run/node";
import { Form, Link, useActionData, useLoaderData } from "@remix-run/react";
import { DialogErrorBoundary } from "~/components/errors/error-boundary";
import { Dialog } from "~/components/ui/dialog";
import { CsrfInput, ErrorList, SubmitButton, useKeptDraft } from "~/components/ui/forms";
import { readProtectedForm } from "~/modules/auth/csrf.server";
import { requireUser } from "~/modules/auth/session.server";
import { parseFolderId } from "~/modules/folders/folder-params.server";
import { getFolder } from "~/modules/folders/folders.server";
import { setIssueNote } from "~/modules/folders/issue-note.server";
import { IssueNoteSchema } from "~/modules/folders/issue-note-validation";
import { orNotFound } from "~/platform/errors.server";
import { getFormConstraint } from "~/platform/form-constraint";
import { redirectWithToast } from "~/platform/toast.server";

export const meta: MetaFunction = () => [
  { title: "A few words for the next issue · Thoughtfully" },
];

/**
 * The note at the top of the folder's next issue, a dialog over the folder
 * (docs/decisions/0212-a-note-for-one-issue.md): the send that carries it clears it.
 */
export async function loader({ request, params }: LoaderFunctionArgs) {
  const user = await requireUser(request);
  const folder = orNotFound(() => getFolder(user.id, parseFolderId(params.folderId)));
  return { folderId: folder.id, name: folder.name, issueNote: folder.issueNote ?? "" };
}

export async function action({ request, params }: ActionFunctionArgs) {
  const user = await requireUser(request);
  const folderId = parseFolderId(params.folderId);
  const submission = parseWithZod(await readProtectedForm(request), { schema: IssueNoteSchema });
  if (submission.status !== "success") {
    return data({ result: submission.reply() }, { status: 400 });
  }
  const { issueNote } = submission.value;
  orNotFound(() => setIssueNote(user.id, folderId, issueNote));
  return redirectWithToast(
    `/folders/${folderId}`,
    issueNote
      ? { title: "Note saved", description: "It opens the next issue, then clears." }
      : { title: "Note removed" },
  );
}

export default function IssueNoteDialog() {
  const { folderId, name, issueNote } = useLoaderData<typeof loader>();
  const actionData = useActionData<typeof action>();
  const keptDraft = useKeptDraft();
  const [form, fields] = useForm({
    id: "issue-note",
    lastResult: actionData?.result ?? keptDraft,
    defaultValue: { issueNote },
    constraint: getFormConstraint(IssueNoteSchema),
    shouldValidate: "onSubmit",
    shouldRevalidate: "onInput",
    onValidate: ({ formData }) => parseWithZod(formData, { schema: IssueNoteSchema }),
  });
  return (
    <Dialog title="A few words for the next issue" closeTo={`/folders/${folderId}`}>
      <Form method="post" {...getFormProps(form)}>
        <CsrfInput />
        <label htmlFor={fields.issueNote.id} className="block text-sm font-medium text-stone-800">
          {`At the top of the next "${name}", for this issue only`}
        </label>
        <textarea
          {...getTextareaProps(fields.issueNote)}
          key={fields.issueNote.key}
          rows={4}
          placeholder="Big week: Sam started school."
          className="mt-1 block w-full rounded-lg border border-stone-300 bg-white px-3 py-2 text-stone-900"
        />
        <ErrorList id={fields.issueNote.errorId} errors={fields.issueNote.errors} />
        <p className="mt-2 text-sm text-stone-600">
          It shows in the Email Preview and clears once the issue is sent. Leave it empty to remove
          it.
        </p>
        <div className="mt-6 flex flex-col-reverse gap-2 sm:flex-row sm:justify-end">
          <Link to={`/folders/${folderId}`} className="btn-secondary" preventScrollReset>
            Back
          </Link>
          <SubmitButton pendingText="Saving..." className="btn-primary w-full sm:w-auto">
            Save note
          </SubmitButton>
        </div>
      </Form>
    </Dialog>
  );
}

export function ErrorBoundary() {
  return <DialogErrorBoundary />;
}

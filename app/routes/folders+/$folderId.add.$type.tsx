import { parseWithZod } from "@conform-to/zod/v4";
import {
  type ActionFunctionArgs,
  data,
  type LoaderFunctionArgs,
  type MetaFunction,
} from "@remix-run/node";
import { useActionData, useLoaderData } from "@remix-run/react";
import { DialogErrorBoundary } from "~/components/errors/error-boundary";
import { ItemForm } from "~/components/items/item-form";
import { Dialog } from "~/components/ui/dialog";
import { readProtectedForm } from "~/modules/auth/csrf.server";
import { requireUser } from "~/modules/auth/session.server";
import { UPLOAD_BODY_MAX_BYTES } from "~/modules/files/upload-kinds";
import { parseFolderId } from "~/modules/folders/folder-params.server";
import { getFolder, recipientsOf, uploadCapacity } from "~/modules/folders/folders.server";
import {
  parseItemType,
  refusedUploadReply,
  unexpectedSaveProblem,
} from "~/modules/items/item-routes.server";
import { NEW_ITEM, schemaFor } from "~/modules/items/item-validation";
import { saveItem } from "~/modules/items/save-item.server";
import { addUploadFromSheet, stillKept } from "~/modules/uploads/kept-files.server";
import { withUpload } from "~/modules/uploads/uploads.server";
import { orNotFound, RuleError } from "~/platform/errors.server";
import { newOneTimeKey, oneTimeKeyOf } from "~/platform/one-time-keys.server";
import { replayWritesToPrimary } from "~/platform/replication.server";
import type { RouteBodyLimit } from "~/platform/route-body-limit";
import { redirectWithToast } from "~/platform/toast.server";
import { pluralize } from "~/utils/format";

const TITLES = {
  link: "Add Link",
  musing: "Add Musing",
  photo: "Add Photo",
  file: "Add File",
  video: "Add Video",
};
const NOUNS = { link: "link", musing: "musing", photo: "photo", file: "file", video: "video" };

export const meta: MetaFunction<typeof loader> = ({ data: loaded }) => [
  { title: `${loaded ? TITLES[loaded.type] : "Add Content"} · Thoughtfully` },
];

export async function loader({ request, params }: LoaderFunctionArgs) {
  const user = await requireUser(request);
  const type = parseItemType(params.type);
  const folder = orNotFound(() => getFolder(user.id, parseFolderId(params.folderId)));
  return {
    type,
    folderId: folder.id,
    recipientNames: recipientsOf(folder).map((recipient) => recipient.name),
    capacity: type === "photo" || type === "file" ? uploadCapacity(folder) : null,
    oneTimeKey: newOneTimeKey(),
  };
}

/**
 * Uploads stream up to a full item's files to disk (docs/decisions/0101-body-limits-by-route.md);
 * any other body is a form. A clip's larger limit is Add Video's own route ($folderId.add.video.tsx).
 */
export const bodyLimit: RouteBodyLimit = { multipart: UPLOAD_BODY_MAX_BYTES };

export async function action({ request, params }: ActionFunctionArgs) {
  await replayWritesToPrimary(request);
  const user = await requireUser(request);
  const type = parseItemType(params.type);
  const folderId = parseFolderId(params.folderId);
  orNotFound(() => getFolder(user.id, folderId));

  if (type === "link" || type === "musing") {
    const formData = await readProtectedForm(request);
    const submission = parseWithZod(formData, { schema: schemaFor(type) });
    if (submission.status !== "success") {
      return data(
        { result: submission.reply(), problem: null },
        { status: submission.status ? 400 : 200 },
      );
    }
    let saved: { location: string };
    try {
      saved = await saveItem(
        user.id,
        { folderId, oneTimeKey: oneTimeKeyOf(formData) },
        submission.value,
      );
    } catch (error) {
      if (!(error instanceof RuleError)) {
        const { problem, status } = unexpectedSaveProblem(error, "add", type);
        return data({ result: submission.reply(), problem }, { status });
      }
      return data(
        { result: submission.reply({ formErrors: [error.message] }), problem: null },
        { status: 400 },
      );
    }
    return redirectWithToast(saved.location, { title: "Content added successfully!" });
  }

  const upload = { kind: type, userId: user.id, csrf: true };
  return withUpload(request, upload, async (received) => {
    const answer = await addUploadFromSheet(user, folderId, type, received);
    if (!answer.ok) return data(answer.reply, { status: answer.status });
    const { location, files } = answer;
    const noun = NOUNS[type];
    // A repeat answered with where the first save led does not know its files.
    const added = files === null ? {} : { description: `${pluralize(files, noun)} added` };
    return redirectWithToast(location, { title: "Content added successfully!", ...added });
  }).catch((error: unknown) =>
    refusedUploadReply(error, type, (fieldsRead) => stillKept(user.id, type, fieldsRead)),
  );
}

export default function AddItem() {
  const { type, folderId, recipientNames, capacity, oneTimeKey } = useLoaderData<typeof loader>();
  const actionData = useActionData<typeof action>();
  return (
    <Dialog title={TITLES[type]} closeTo={`/folders/${folderId}`}>
      <ItemForm
        key={type}
        type={type}
        mode="add"
        lastResult={actionData?.result}
        uploadProblem={actionData?.problem}
        kept={actionData && "kept" in actionData ? actionData.kept : null}
        defaultValue={NEW_ITEM}
        recipientNames={recipientNames}
        cancelTo={`/folders/${folderId}`}
        capacity={capacity}
        oneTimeKey={oneTimeKey}
        pendingIn={{ folderId }}
      />
    </Dialog>
  );
}

export function ErrorBoundary() {
  return <DialogErrorBoundary />;
}

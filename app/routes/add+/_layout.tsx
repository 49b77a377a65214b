import type { LoaderFunctionArgs, MetaFunction } from "@remix-run/node";
import { Link, Outlet, useLoaderData } from "@remix-run/react";
import { AppShell } from "~/components/layout/app-shell";
import { ErrorList } from "~/components/ui/forms";
import {
  captureForm,
  captureQuery,
  folderChoices,
  readCapture,
  requireAddUser,
} from "~/modules/items/capture.server";
import { isValidUrl } from "~/modules/items/item-validation";
import { pluralize } from "~/utils/format";

export const meta: MetaFunction = () => [{ title: "Add content · Thoughtfully" }];

export async function loader({ request }: LoaderFunctionArgs) {
  const user = await requireAddUser(request);
  const capture = readCapture(new URL(request.url).searchParams);
  const query = captureQuery(capture);
  return {
    capture,
    query,
    problems: captureForm(capture).problems,
    newFolderPath: `/folders/new?${new URLSearchParams({ returnTo: `/add${query}` })}`,
    ...folderChoices(user.id),
  };
}

export default function AddPage() {
  const { capture, query, problems, newFolderPath, folders, canCreateFolder } =
    useLoaderData<typeof loader>();
  return (
    <AppShell>
      <section className="mx-auto max-w-3xl px-4 py-10">
        <h1 className="font-serif text-3xl font-semibold text-stone-900">Add content</h1>
        <p className="mt-2 text-stone-700">
          {capture.fromBrowser
            ? "Choose the folder this page should wait in until the next send."
            : "Choose a folder to add a link to."}
        </p>

        {capture.fromBrowser ? (
          <article
            aria-labelledby="capture-heading"
            className="mt-6 rounded-2xl border border-brand-200 bg-white p-5 shadow-xs"
          >
            <h2
              id="capture-heading"
              className="text-sm font-semibold uppercase tracking-wide text-brand-700"
            >
              Captured from your browser
            </h2>
            <dl className="mt-3 space-y-3 text-sm">
              <div>
                <dt className="font-medium text-stone-600">Title</dt>
                <dd className="wrap-break-word text-lg font-semibold text-stone-900">
                  {capture.title || (
                    <span className="text-stone-600">(none: the page's own is used)</span>
                  )}
                  <ErrorList errors={problems.title} />
                </dd>
              </div>
              <div>
                <dt className="font-medium text-stone-600">URL</dt>
                <dd className="break-all text-stone-800">
                  {capture.url && isValidUrl(capture.url) ? (
                    <a href={capture.url} rel="noopener noreferrer nofollow" className="underline">
                      {capture.url}
                    </a>
                  ) : (
                    capture.url || <span className="text-stone-600">(no address)</span>
                  )}
                  <ErrorList errors={problems.url} />
                </dd>
              </div>
              {capture.note ? (
                <div>
                  <dt className="font-medium text-stone-600">Note</dt>
                  <dd className="whitespace-pre-line wrap-break-word text-stone-800">
                    {capture.note}
                    <ErrorList errors={problems.note} />
                  </dd>
                </div>
              ) : null}
            </dl>
          </article>
        ) : null}

        <h2 className="mt-8 font-serif text-xl font-semibold text-stone-900">Your folders</h2>
        {folders.length === 0 ? (
          <div className="mt-4 rounded-2xl border border-dashed border-stone-300 bg-white p-6 text-center">
            <p className="text-stone-700">
              You have no folders yet. Create your first one, and you will come straight back here
              to add this.
            </p>
            {canCreateFolder ? (
              <Link to={newFolderPath} className="btn-primary mt-4">
                Create your first folder
              </Link>
            ) : null}
          </div>
        ) : (
          <ul className="mt-4 grid gap-3 sm:grid-cols-2">
            {folders.map((folder) => (
              <li key={folder.id}>
                <Link
                  to={`/add/${folder.id}${query}`}
                  preventScrollReset
                  className="block h-full rounded-2xl border border-stone-200 bg-white p-4 shadow-xs hover:border-brand-400 hover:shadow-sm"
                >
                  {/* Named by what it shows, so a voice command saying the folder's name finds it. */}
                  <span className="block font-semibold text-stone-900">
                    <span className="sr-only">Add to </span>
                    {folder.name}
                  </span>
                  <span className="mt-1 block break-all text-sm text-stone-700">
                    {folder.emails.join(", ") || "No recipients"}
                  </span>
                  <span className="mt-2 block text-xs text-stone-600">
                    {folder.isPaused ? "Paused" : folder.frequencyLabel} ·{" "}
                    {pluralize(folder.itemCount, "item")}
                    {folder.isUnsubscribed ? " · Everyone unsubscribed" : ""}
                  </span>
                </Link>
              </li>
            ))}
          </ul>
        )}
        {folders.length > 0 && canCreateFolder ? (
          <p className="mt-4 text-sm">
            <Link to={newFolderPath} className="text-brand-700 underline">
              Create a new folder
            </Link>
          </p>
        ) : null}
      </section>
      <Outlet />
    </AppShell>
  );
}

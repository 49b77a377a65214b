import { DATABASE_BUSY, type DatabaseBusyFailure } from "~/platform/database-busy";
import { ResubmitForm } from "./resubmit-form";

/**
 * The 503 page for a request that met the database busy past its short wait
 * (app/platform/database-busy.server.ts): a posted form comes back as typed,
 * to send again; a page that could not be shown is a link to try again.
 */
export function DatabaseBusyPage({ failure }: { failure: DatabaseBusyFailure }) {
  return (
    <section className="mx-auto max-w-lg px-4 py-16">
      <h1 role="alert" className="font-serif text-3xl font-semibold text-stone-900">
        {DATABASE_BUSY.title}
      </h1>
      {failure.token && failure.fields.length > 0 ? (
        <>
          <p className="mt-4 text-stone-700">{DATABASE_BUSY.text}</p>
          <ResubmitForm
            fields={failure.fields}
            action={failure.action}
            token={failure.token}
            submitLabel={DATABASE_BUSY.retry}
          />
        </>
      ) : (
        <a href={failure.action} className="btn-primary mt-6 inline-block">
          {DATABASE_BUSY.retry}
        </a>
      )}
    </section>
  );
}

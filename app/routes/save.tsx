import type { LoaderFunctionArgs, MetaFunction } from "@remix-run/node";
import { AppShell } from "~/components/app-shell";
import { requireUser } from "~/modules/accounts/session.server";

export const meta: MetaFunction = () => [{ title: "Save · Thoughtfully" }];

export async function loader({ request }: LoaderFunctionArgs) {
  await requireUser(request);
  return null;
}

export default function SaveView() {
  return (
    <AppShell>
      <section className="mx-auto max-w-2xl px-4 py-20 text-center">
        <h1 className="font-serif text-3xl font-semibold text-stone-900">Save</h1>
        <p className="mt-4 text-lg text-stone-700">
          Coming Soon: Save what you've sent, save to send later, and save what's been sent to you.
        </p>
      </section>
    </AppShell>
  );
}

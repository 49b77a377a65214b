import { type LoaderFunctionArgs, type MetaFunction, redirect } from "@remix-run/node";
import { Link, useLoaderData } from "@remix-run/react";
import { DashboardPage } from "~/components/folders/dashboard";
import { PublicLayout } from "~/components/layout/public-layout";
import { getUser } from "~/modules/auth/session.server";
import { loadDashboardPage } from "~/modules/dashboard/dashboard.server";

export const meta: MetaFunction = () => [
  { title: "Thoughtfully · Share Thoughtfully. Save now to send later." },
  {
    name: "description",
    content:
      "Save links, photos, files and notes into folders as they come to you; on the day you choose, each folder goes to family and friends as one calm e-mail.",
  },
];

const steps = [
  {
    title: "Create Folders",
    body: "Create a folder, add up to five email addresses and set a delivery schedule: weekly or monthly.",
    icon: "M3 7a2 2 0 0 1 2-2h4l2 2h8a2 2 0 0 1 2 2v8a2 2 0 0 1-2 2H5a2 2 0 0 1-2-2V7z",
  },
  {
    title: "Save Content",
    body: "Save links, photos, files and short musings to the folder whenever something makes you think of them.",
    icon: "M12 5v14M5 12h14",
  },
  {
    title: "Scheduled Send",
    body: "At 00:01 on the day you chose, the folder becomes one calm, newsletter-style email, and the folder empties.",
    icon: "M12 7v5l3 2M21 12a9 9 0 1 1-18 0 9 9 0 0 1 18 0z",
  },
  {
    title: "Share Thoughtfully",
    body: "Your recipients see everything in one place, at a time that suits them, instead of a stream of interruptions.",
    icon: "M20.8 4.6a5.5 5.5 0 0 0-7.8 0L12 5.7l-1-1.1a5.5 5.5 0 0 0-7.8 7.8L12 21.2l8.8-8.8a5.5 5.5 0 0 0 0-7.8z",
  },
];

/**
 * "/" is the landing page for visitors and the dashboard for signed-in
 * senders, with the first folder selected. `?folder=ID` preselects a folder
 * (docs/product-rules.md, Pages and messages): it becomes that folder's own address.
 */
export async function loader({ request }: LoaderFunctionArgs) {
  const user = await getUser(request);
  if (!user) return { dashboard: null };
  const folderParam = new URL(request.url).searchParams.get("folder");
  if (folderParam && /^\d+$/.test(folderParam)) throw redirect(`/folders/${folderParam}`);
  return {
    dashboard: await loadDashboardPage(request, user),
  };
}

export default function Index() {
  const { dashboard } = useLoaderData<typeof loader>();
  return dashboard ? <DashboardPage data={dashboard} /> : <Landing />;
}

function Landing() {
  return (
    <PublicLayout>
      <section className="mx-auto max-w-6xl px-4 pb-16 pt-14 text-center sm:px-6 sm:pt-24">
        <h1 className="font-serif text-4xl font-semibold tracking-tight text-stone-900 sm:text-6xl">
          Share Thoughtfully.
        </h1>
        <p className="mx-auto mt-5 max-w-2xl text-lg text-stone-700 sm:text-xl">
          Save now to send later. Collect the links, photos, files and notes you want to share, and
          send them to the people you love as one unhurried email.
        </p>
        <Link to="/signup" className="btn-primary mt-9 px-8 py-3 text-base">
          I'm in
        </Link>
      </section>

      <section aria-labelledby="how-it-works" className="bg-white/70 py-16">
        <div className="mx-auto max-w-6xl px-4 sm:px-6">
          <h2
            id="how-it-works"
            className="text-center font-serif text-2xl font-semibold text-stone-900 sm:text-3xl"
          >
            How it works
          </h2>
          <ol className="mt-10 grid gap-6 sm:grid-cols-2 lg:grid-cols-4">
            {steps.map((step, index) => (
              <li
                key={step.title}
                className="rounded-2xl border border-stone-200 bg-cream p-6 text-left shadow-xs"
              >
                <span className="flex h-11 w-11 items-center justify-center rounded-full bg-brand-100 text-brand-700">
                  <svg
                    aria-hidden="true"
                    viewBox="0 0 24 24"
                    className="h-6 w-6"
                    fill="none"
                    stroke="currentColor"
                    strokeWidth="1.8"
                    strokeLinecap="round"
                    strokeLinejoin="round"
                  >
                    <path d={step.icon} />
                  </svg>
                </span>
                <h3 className="mt-4 font-serif text-lg font-semibold text-stone-900">
                  <span className="sr-only">Step {index + 1}: </span>
                  {step.title}
                </h3>
                <p className="mt-2 text-sm leading-relaxed text-stone-700">{step.body}</p>
              </li>
            ))}
          </ol>
        </div>
      </section>

      <section className="mx-auto max-w-6xl px-4 py-16 sm:px-6">
        <div className="rounded-3xl bg-brand-700 px-6 py-12 text-center text-white sm:px-12">
          <h2 className="font-serif text-2xl font-semibold sm:text-3xl">
            Fewer interruptions. More meaningful sharing.
          </h2>
          <p className="mx-auto mt-3 max-w-xl text-brand-100">
            Start a folder for the family, the book club or an old friend: it takes a minute.
          </p>
          <Link
            to="/signup"
            className="btn mt-8 bg-white px-8 py-3 text-base text-brand-900 hover:bg-brand-50"
          >
            Ok, now I'm in
          </Link>
        </div>
      </section>
    </PublicLayout>
  );
}

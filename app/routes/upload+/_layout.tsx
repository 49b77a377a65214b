import type { LoaderFunctionArgs, MetaFunction } from "@remix-run/node";
import { Outlet, useLoaderData } from "@remix-run/react";
import { DashboardPage } from "~/components/folders/dashboard";
import { requireUser } from "~/modules/auth/session.server";
import { loadDashboardPage } from "~/modules/dashboard/dashboard.server";

export const meta: MetaFunction = () => [{ title: "Upload to Multiple Folders · Thoughtfully" }];

/** The wizard's steps are dialogs over the dashboard. */
export async function loader({ request }: LoaderFunctionArgs) {
  const user = await requireUser(request);
  return await loadDashboardPage(request, user);
}

export default function UploadLayout() {
  const data = useLoaderData<typeof loader>();
  return (
    <DashboardPage data={data}>
      <Outlet />
    </DashboardPage>
  );
}

import {
  type ActionFunctionArgs,
  data,
  type LoaderFunctionArgs,
  type MetaFunction,
} from "@remix-run/node";
import { useActionData, useLoaderData, useSearchParams } from "@remix-run/react";
import { AdminErrorBoundary, AdminPage, adminHeaders } from "~/components/admin-dashboard/admin";
import { BusinessTab } from "~/components/admin-dashboard/business-tab";
import { HealthTab } from "~/components/admin-dashboard/health-tab";
import { OverviewTab } from "~/components/admin-dashboard/overview-tab";
import { RelayHoldNotice } from "~/components/admin-dashboard/relay-status";
import { SecurityTab } from "~/components/admin-dashboard/security-tab";
import { SecurityLink, TABS, TabNav, tabHref, tabOf } from "~/components/admin-dashboard/tab-nav";
import { UsageTab } from "~/components/admin-dashboard/usage-tab";
import {
  getAdminDashboard,
  getDailySeries,
  getSecurityDashboard,
  getUnsubscribeReasons,
} from "~/modules/admin/admin-metrics.server";
import { GrantRoleSchema, RevokeRoleSchema } from "~/modules/admin/role-validation";
import { readProtectedForm } from "~/modules/auth/csrf.server";
import {
  findUserIdByEmail,
  grantRole,
  requireAdmin,
  revokeRole,
  roleOverview,
} from "~/modules/auth/roles.server";
import { hasTwoFactor } from "~/modules/auth/two-factor.server";
import { relayStatus } from "~/modules/sending/relay-hold.server";
import { parseIntentForm } from "~/platform/intent.server";
import { redirectRefreshed, redirectWithToast } from "~/platform/toast.server";
import { z } from "~/platform/zod";

export const meta: MetaFunction = () => [
  { title: "Admin Dashboard · Thoughtfully" },
  { name: "robots", content: "noindex" },
];

export const headers = adminHeaders;

export async function loader({ request }: LoaderFunctionArgs) {
  const admin = await requireAdmin(request, "the admin dashboard");
  const tab = tabOf(new URL(request.url).searchParams.get("tab"));
  const now = new Date();
  const dashboard = getAdminDashboard(now);
  const series =
    tab === "business" || tab === "usage"
      ? getDailySeries(now, {
          weeklyActiveSenders: dashboard.businessMetrics.weeklyActiveUsers,
          storageUsed: dashboard.usageStats.totalStorageUsed,
        })
      : null;
  const security = tab === "security" ? getSecurityDashboard(now) : null;
  const unsubscribeReasons = tab === "business" ? getUnsubscribeReasons(now) : null;
  const roles = tab === "security" ? roleOverview() : null;
  return data({
    tab,
    generatedAt: now.toISOString(),
    adminId: admin.id,
    dashboard,
    series,
    unsubscribeReasons,
    security,
    roles,
    // On every tab: sending held by the relay is the first thing an operator must see.
    relay: relayStatus(now),
  });
}

/** Refresh (every admin page's), and the security tab's grant and revoke. */
const AdminDashboardActionSchema = z.discriminatedUnion("intent", [
  z.object({ intent: z.literal("refresh") }),
  GrantRoleSchema,
  RevokeRoleSchema,
]);

export async function action({ request }: ActionFunctionArgs) {
  const formData = await readProtectedForm(request);
  const admin = await requireAdmin(request, "the admin dashboard");
  const submission = parseIntentForm(formData, AdminDashboardActionSchema);
  if (submission.status !== "success") {
    return data({ result: submission.reply() }, { status: 400 });
  }
  const back = tabHref("security");
  switch (submission.value.intent) {
    case "refresh":
      return redirectRefreshed(request);
    case "revoke": {
      const { userId, reason } = submission.value;
      if (userId === admin.id) {
        return redirectWithToast(back, {
          title: "Not revoked",
          description:
            "You cannot revoke your own admin role here; another admin or npm run admin:revoke can.",
          variant: "destructive",
        });
      }
      const result = revokeRole(userId, "admin", { revokedBy: admin.id, reason });
      return redirectWithToast(back, {
        title: result === "revoked" ? "Admin role revoked" : "Nothing to revoke",
      });
    }
    case "grant": {
      const { email, role, reason } = submission.value;
      const userId = findUserIdByEmail(email);
      if (userId === null) {
        return data(
          { result: submission.reply({ fieldErrors: { email: ["No account uses this e-mail"] } }) },
          { status: 400 },
        );
      }
      const result = grantRole(userId, role, { grantedBy: admin.id, reason });
      const waitsForTwoFactor = role === "admin" && !hasTwoFactor(userId);
      return redirectWithToast(back, {
        title:
          result === "granted"
            ? `Role ${role} granted`
            : `Already ${role === "admin" ? "an admin" : "a user"}`,
        description: waitsForTwoFactor
          ? `${email}: takes effect once they set up two-factor sign-in.`
          : email,
      });
    }
  }
}

export default function AdminDashboard() {
  const loaded = useLoaderData<typeof loader>();
  const actionData = useActionData<typeof action>();
  const current = TABS.find((tab) => tab.id === loaded.tab) ?? TABS[0];
  return (
    <AdminPage
      title="Admin Dashboard"
      generatedAt={loaded.generatedAt}
      nav={<TabNav current={loaded.tab} />}
    >
      <RelayHoldNotice relay={loaded.relay} />
      <div className="flex flex-wrap items-center justify-between gap-2">
        <h2 className="sr-only">{current.label}</h2>
        {loaded.tab !== "security" ? <SecurityLink /> : null}
      </div>
      {loaded.tab === "overview" ? <OverviewTab dashboard={loaded.dashboard} /> : null}
      {loaded.tab === "health" ? <HealthTab health={loaded.dashboard.systemHealth} /> : null}
      {loaded.tab === "business" ? (
        <BusinessTab
          metrics={loaded.dashboard.businessMetrics}
          unsubscribeReasons={loaded.unsubscribeReasons}
          series={loaded.series}
        />
      ) : null}
      {loaded.tab === "usage" ? (
        <UsageTab usage={loaded.dashboard.usageStats} series={loaded.series} />
      ) : null}
      {loaded.tab === "security" ? (
        <SecurityTab
          metrics={loaded.security?.metrics ?? null}
          roles={loaded.roles}
          adminId={loaded.adminId}
          lastResult={actionData?.result}
        />
      ) : null}
    </AdminPage>
  );
}

export function ErrorBoundary() {
  const [searchParams] = useSearchParams();
  const failure =
    tabOf(searchParams.get("tab")) === "security"
      ? "Failed to load security data"
      : "Failed to load admin dashboard data";
  return <AdminErrorBoundary what="the admin dashboard" failure={failure} />;
}

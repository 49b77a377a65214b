import {
  getFormProps,
  getInputProps,
  getSelectProps,
  type SubmissionResult,
  useForm,
} from "@conform-to/react";
import { parseWithZod } from "@conform-to/zod/v4";
import { Form } from "@remix-run/react";
import { Panel, Stat, StatGrid } from "~/components/admin-dashboard/admin";
import { type DataColumn, DataTable } from "~/components/ui/data-table";
import { CsrfInput, ErrorList, Field, SubmitButton } from "~/components/ui/forms";
import { formatNumber, levels } from "~/modules/admin/admin-display";
import type { getSecurityDashboard } from "~/modules/admin/admin-metrics.server";
import { GrantRoleSchema } from "~/modules/admin/role-validation";
import type { RoleOverview } from "~/modules/auth/roles.server";
import { formatUtc } from "~/platform/dates";
import { getFormConstraint } from "~/platform/form-constraint";
import { SecurityLink } from "./tab-nav";

type SecurityMetrics = ReturnType<typeof getSecurityDashboard>["metrics"];

const ROLE_HISTORY_COLUMNS: DataColumn<RoleOverview["history"][number]>[] = [
  { id: "user", header: "User", cell: (row) => row.email },
  { id: "role", header: "Role", cell: (row) => row.role },
  {
    id: "granted",
    header: "Granted",
    cell: (row) =>
      `${formatUtc(row.grantedAt)} by ${row.grantedBy ?? "command line"}${row.grantReason ? `: ${row.grantReason}` : ""}`,
  },
  {
    id: "revoked",
    header: "Revoked",
    cell: (row) =>
      row.revokedAt
        ? `${formatUtc(row.revokedAt)} by ${row.revokedBy ?? "command line"}${row.revokeReason ? `: ${row.revokeReason}` : ""}`
        : "Active",
  },
];

function RolesPanel({
  roles,
  adminId,
  lastResult,
}: {
  roles: RoleOverview;
  adminId: number;
  lastResult: SubmissionResult<string[]> | undefined;
}) {
  const [form, fields] = useForm({
    id: "grant-role",
    lastResult,
    constraint: getFormConstraint(GrantRoleSchema),
    shouldValidate: "onBlur",
    onValidate: ({ formData }) => parseWithZod(formData, { schema: GrantRoleSchema }),
  });
  const roleProps = getSelectProps(fields.role);
  return (
    <Panel title="Admin roles">
      <h3 className="font-semibold text-stone-900">Current admins</h3>
      <ul className="mt-2 divide-y divide-stone-200">
        {roles.admins.map((admin) => (
          <li key={admin.userId} className="flex flex-wrap items-center gap-3 py-2">
            <span className="min-w-0 flex-1 text-stone-900">
              {admin.email}{" "}
              <span className="text-sm text-stone-600">since {formatUtc(admin.grantedAt)}</span>
            </span>
            {admin.userId === adminId ? (
              <span className="text-sm text-stone-600">You</span>
            ) : (
              <Form method="post" className="flex items-center gap-2">
                <CsrfInput />
                <input type="hidden" name="intent" value="revoke" />
                <input type="hidden" name="userId" value={admin.userId} />
                <label className="sr-only" htmlFor={`revoke-reason-${admin.userId}`}>
                  Reason for revoking {admin.email}
                </label>
                <input
                  id={`revoke-reason-${admin.userId}`}
                  name="reason"
                  placeholder="Reason (optional)"
                  maxLength={200}
                  className="rounded-lg border border-stone-300 px-2 py-1 text-sm"
                />
                <button type="submit" className="btn-secondary py-1">
                  Revoke admin <span className="sr-only">from {admin.email}</span>
                </button>
              </Form>
            )}
          </li>
        ))}
      </ul>

      <h3 className="mt-6 font-semibold text-stone-900">Grant a role</h3>
      <Form method="post" {...getFormProps(form)} className="mt-2 grid gap-3 sm:grid-cols-3">
        <CsrfInput />
        <input type="hidden" name="intent" value="grant" />
        <Field
          label="Email"
          inputProps={{ ...getInputProps(fields.email, { type: "email" }), autoComplete: "off" }}
          errors={fields.email.errors}
        />
        <div>
          <label htmlFor={roleProps.id} className="block text-sm font-medium text-stone-800">
            Role
          </label>
          <select
            {...roleProps}
            key={roleProps.key}
            defaultValue="admin"
            className="mt-1 block w-full rounded-lg border border-stone-300 bg-white px-3 py-2"
          >
            <option value="admin">Admin</option>
            <option value="user">User</option>
          </select>
          <ErrorList errors={fields.role.errors} />
        </div>
        <Field
          label="Reason (optional)"
          inputProps={{ ...getInputProps(fields.reason, { type: "text" }), maxLength: 200 }}
          errors={fields.reason.errors}
        />
        <div className="sm:col-span-3">
          <SubmitButton pendingText="Granting..." className="btn-primary">
            Grant role
          </SubmitButton>
        </div>
      </Form>

      <h3 className="mt-6 font-semibold text-stone-900">History</h3>
      <DataTable
        caption="Role history"
        captionHidden
        className="mt-2"
        columns={ROLE_HISTORY_COLUMNS}
        rows={roles.history}
        rowKey={(row) => row.id}
      />
    </Panel>
  );
}

export function SecurityTab({
  metrics,
  roles,
  adminId,
  lastResult,
}: {
  metrics: SecurityMetrics | null;
  roles: RoleOverview | null;
  adminId: number;
  lastResult: SubmissionResult<string[]> | undefined;
}) {
  return (
    <>
      <Panel title="Security summary" actions={<SecurityLink />}>
        {metrics ? (
          <StatGrid>
            <Stat
              label="Critical alerts"
              value={formatNumber(metrics.criticalAlerts)}
              level={levels.criticalAlerts(metrics.criticalAlerts)}
            />
            <Stat
              label="Failed logins"
              value={formatNumber(metrics.failedLogins)}
              level={levels.failedLogins(metrics.failedLogins)}
            />
            <Stat
              label="Unauthorized access"
              value={formatNumber(metrics.unauthorizedAccess)}
              level={levels.unauthorizedAccess(metrics.unauthorizedAccess)}
            />
            <Stat label="Security events" value={formatNumber(metrics.totalSecurityEvents)} />
          </StatGrid>
        ) : null}
        <p className="mt-3 text-sm text-stone-600">Counts cover the last 24 hours.</p>
      </Panel>
      {roles ? <RolesPanel roles={roles} adminId={adminId} lastResult={lastResult} /> : null}
    </>
  );
}

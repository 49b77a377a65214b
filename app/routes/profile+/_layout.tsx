import { getFormProps, getInputProps, getSelectProps, useForm } from "@conform-to/react";
import { parseWithZod } from "@conform-to/zod/v4";
import {
  type ActionFunctionArgs,
  data,
  type LoaderFunctionArgs,
  type MetaFunction,
} from "@remix-run/node";
import { Form, Link, Outlet, useActionData, useLoaderData } from "@remix-run/react";
import { TEMPLATE_LABELS } from "#emails/newsletter-themes";
import { AddPasskeyButton } from "~/components/auth/passkey-buttons";
import { Bookmarklet } from "~/components/capture/bookmarklet";
import { AppShell } from "~/components/layout/app-shell";
import { PremiumPerkList } from "~/components/premium/premium-perks";
import { CsrfInput, ErrorList, Field, SubmitButton, useKeptDraft } from "~/components/ui/forms";
import { SettingsSection } from "~/components/ui/settings-section";
import { updateProfile } from "~/modules/accounts/accounts.server";
import { timeZoneGroups } from "~/modules/accounts/time-zones.server";
import { listApiTokens } from "~/modules/api/api-tokens.server";
import { readProtectedForm } from "~/modules/auth/csrf.server";
import { listPasskeys } from "~/modules/auth/passkeys.server";
import { requireUser } from "~/modules/auth/session.server";
import { hasTwoFactor } from "~/modules/auth/two-factor.server";
import { ProfileSchema } from "~/modules/auth/user-validation";
import { LIMITS } from "~/modules/plans/limits";
import { PRIORITY_SUPPORT_PROMISE, prioritySupportAddress } from "~/modules/plans/priority-support";
import { getUsage } from "~/modules/plans/quota.server";
import { getBranding } from "~/modules/sending/branding.server";
import { formatDay } from "~/platform/dates";
import { env } from "~/platform/env.server";
import { getFormConstraint } from "~/platform/form-constraint";
import { redirectWithToast } from "~/platform/toast.server";
import { formatBytes } from "~/utils/format";

export const meta: MetaFunction = () => [{ title: "Profile Settings · Thoughtfully" }];

const FREQUENCY_LABELS = {
  daily: "daily",
  weekly: "weekly",
  biweekly: "every two weeks",
  monthly: "monthly",
} as const;

export async function loader({ request }: LoaderFunctionArgs) {
  const user = await requireUser(request);
  const usage = getUsage(user.id);
  const premium = usage.tier === "premium";
  const branding = getBranding(user.id);
  const tier = premium ? LIMITS.premium : LIMITS.free;
  const day = (date: Date) => formatDay(date, user.timeZone);
  return {
    profile: {
      firstName: user.firstName ?? "",
      lastName: user.lastName ?? "",
      email: user.email,
      timeZone: user.timeZone,
    },
    features: {
      plan: premium ? "Premium" : "Free",
      premium,
      folders: Number.isFinite(usage.limits.maxFolders)
        ? String(usage.limits.maxFolders)
        : "Unlimited",
      storage: formatBytes(usage.limits.maxStorageBytes),
      referralBonus: `+${usage.bonus.folders} folders, +${formatBytes(usage.bonus.storageBytes)} (${usage.bonus.completedReferrals} friends joined)`,
      perFolder: `${formatBytes(LIMITS.folder.maxSizeBytes)} (${formatBytes(LIMITS.folder.icloudMaxSizeBytes)} with an iCloud recipient)`,
      frequencies: tier.frequencies.map((frequency) => FREQUENCY_LABELS[frequency]).join(", "),
    },
    perks: {
      template: TEMPLATE_LABELS[branding.template].name,
      accentColor: branding.accentColor,
      headerImage: branding.headerImage !== null,
      prioritySupport: premium ? prioritySupportAddress(env.SUPPORT_EMAIL) : null,
    },
    timeZoneGroups: timeZoneGroups(user.timeZone),
    // iOS cannot share to a web app: its visitors get the bookmarklet and the Shortcut first.
    onIOS: /\b(iPhone|iPad|iPod)\b/.test(request.headers.get("User-Agent") ?? ""),
    appUrl: env.APP_URL,
    // Folders have an address of their own only where save by e-mail is set up.
    saveByEmail: Boolean(env.INBOUND_EMAIL_DOMAIN),
    twoFactorOn: hasTwoFactor(user.id),
    passkeys: listPasskeys(user.id).map((key) => ({
      id: key.id,
      name: key.name,
      created: day(key.createdAt),
      lastUsed: key.lastUsedAt ? day(key.lastUsedAt) : "Never used",
    })),
    apiTokens: listApiTokens(user.id).map((token) => ({
      id: token.id,
      name: token.name,
      scope: token.scope,
      created: day(token.createdAt),
      lastUsed: token.lastUsedAt ? day(token.lastUsedAt) : "Never used",
      expiry: `${token.expiresAt.getTime() > Date.now() ? "expires" : "expired"} ${day(token.expiresAt)}`,
    })),
  };
}

export async function action({ request }: ActionFunctionArgs) {
  const user = await requireUser(request);
  const formData = await readProtectedForm(request);
  const submission = parseWithZod(formData, { schema: ProfileSchema });
  if (submission.status !== "success") {
    return data({ result: submission.reply() }, { status: 400 });
  }
  updateProfile(user.id, submission.value);
  return redirectWithToast("/profile", {
    title: "Profile updated",
    description: "Your changes have been saved.",
  });
}

export default function ProfileSettings() {
  const {
    profile,
    features,
    perks,
    timeZoneGroups,
    onIOS,
    appUrl,
    saveByEmail,
    twoFactorOn,
    passkeys,
    apiTokens,
  } = useLoaderData<typeof loader>();
  const actionData = useActionData<typeof action>();
  const keptDraft = useKeptDraft();
  const [form, fields] = useForm({
    id: "profile",
    lastResult: actionData?.result ?? keptDraft,
    defaultValue: profile,
    constraint: getFormConstraint(ProfileSchema),
    shouldValidate: "onBlur",
    shouldRevalidate: "onInput",
    onValidate: ({ formData }) => parseWithZod(formData, { schema: ProfileSchema }),
  });
  const timeZoneProps = getSelectProps(fields.timeZone);

  return (
    <AppShell>
      <div className="mx-auto max-w-3xl space-y-6 px-4 py-10 sm:px-6">
        <h1 className="font-serif text-3xl font-semibold text-stone-900">Profile Settings</h1>

        <SettingsSection id="personal" title="Personal information">
          <Form method="post" {...getFormProps(form)} className="mt-4 grid gap-4 sm:grid-cols-2">
            <CsrfInput />
            <Field
              label="First name"
              inputProps={{
                ...getInputProps(fields.firstName, { type: "text" }),
                autoComplete: "given-name",
              }}
              errors={fields.firstName.errors}
            />
            <Field
              label="Last name"
              inputProps={{
                ...getInputProps(fields.lastName, { type: "text" }),
                autoComplete: "family-name",
              }}
              errors={fields.lastName.errors}
            />
            <Field
              className="sm:col-span-2"
              label="Email"
              hint="Email cannot be changed"
              inputProps={{ type: "email", value: profile.email, disabled: true, readOnly: true }}
            />
            <div className="sm:col-span-2">
              <label
                htmlFor={timeZoneProps.id}
                className="block text-sm font-medium text-stone-800"
              >
                Time zone
              </label>
              <select
                {...timeZoneProps}
                key={timeZoneProps.key}
                className="mt-1 block w-full rounded-lg border border-stone-300 bg-white px-3 py-2 text-stone-900"
              >
                {timeZoneGroups.map((group) => (
                  <optgroup key={group.region} label={group.region}>
                    {group.zones.map((zone) => (
                      <option key={zone.value} value={zone.value}>
                        {zone.label}
                      </option>
                    ))}
                  </optgroup>
                ))}
              </select>
              <input type="hidden" name="timeZoneShown" value={profile.timeZone} />
              <p className="mt-1 text-xs text-stone-600">
                Your folders are sent at 00:01 in this time zone. Type a city's first letters to
                jump to it; cities are grouped by region.
              </p>
              <ErrorList errors={fields.timeZone.errors} />
            </div>
            <div className="sm:col-span-2">
              <SubmitButton pendingText="Saving..." className="btn-primary">
                Save Changes
              </SubmitButton>
            </div>
          </Form>
        </SettingsSection>

        <SettingsSection id="features" title="Account Features">
          <dl className="mt-4 grid gap-x-6 gap-y-3 text-sm sm:grid-cols-2">
            {[
              ["Plan", features.plan],
              ["Folders", features.folders],
              ["Total storage", features.storage],
              ["Per folder", features.perFolder],
              ["Delivery", features.frequencies],
              ["Recipients per folder", String(LIMITS.folder.maxRecipients)],
              ["Referral bonus", features.referralBonus],
            ].map(([term, value]) => (
              <div key={term}>
                <dt className="text-stone-600">{term}</dt>
                <dd className="font-medium text-stone-900">{value}</dd>
              </div>
            ))}
          </dl>
          <div className="mt-5 flex flex-wrap gap-2">
            {features.premium ? (
              <Form method="post" action="/billing/portal">
                <CsrfInput />
                <SubmitButton pendingText="Opening billing..." className="btn-secondary">
                  Manage billing
                </SubmitButton>
              </Form>
            ) : (
              <Link to="/upgrade" className="btn-primary">
                Upgrade to Premium
              </Link>
            )}
            <Link to="/invite" className="btn-secondary">
              Invite friends, get folders
            </Link>
          </div>
        </SettingsSection>

        <SettingsSection id="perks" title="Premium perks">
          {features.premium ? (
            <dl className="mt-4 space-y-3 text-sm">
              <div>
                <dt className="text-stone-600">Newsletter look</dt>
                <dd className="font-medium text-stone-900">
                  {`${perks.template} template${perks.accentColor ? `, accent ${perks.accentColor}` : ""}${perks.headerImage ? ", header image" : ""}`}
                </dd>
              </div>
              <div>
                <dt className="text-stone-600">Priority support</dt>
                <dd className="font-medium text-stone-900">
                  {perks.prioritySupport ? (
                    <>
                      <a href={`mailto:${perks.prioritySupport}`} className="break-all underline">
                        {perks.prioritySupport}
                      </a>
                      : {PRIORITY_SUPPORT_PROMISE}
                    </>
                  ) : null}
                </dd>
              </div>
            </dl>
          ) : (
            <div className="mt-4">
              <PremiumPerkList />
            </div>
          )}
          <div className="mt-5 flex flex-wrap gap-2">
            <Link to="/profile/branding" className="btn-secondary" preventScrollReset>
              Newsletter look
            </Link>
            {features.premium ? null : (
              <Link to="/upgrade" className="btn-primary">
                Upgrade for these perks
              </Link>
            )}
          </div>
        </SettingsSection>

        <SettingsSection id="save-anywhere" title="Save from any browser">
          <div className="mt-4">
            <Bookmarklet appUrl={appUrl} />
          </div>
          <p className="mt-4 text-sm text-stone-700">
            On Chrome, the{" "}
            <Link to="/chrome-extension" className="text-brand-700 underline">
              Thoughtfully extension
            </Link>{" "}
            does the same from the toolbar.{" "}
            {onIOS
              ? "On this iPhone or iPad, use the bookmark above in Safari, or the Shortcut below."
              : "On an Android phone, add this site to your home screen, then use Share → Thoughtfully: links, photos from your gallery, PDFs and Word files go to the folder you last added to, saved with one tap."}
          </p>
          <p className="mt-2 text-sm text-stone-700">
            On an iPhone or iPad, a photo cannot be shared to a web app. Save it with an Apple
            Shortcut that uploads it with an API token (see API tokens, below; the Shortcut just
            after this is for links)
            {saveByEmail
              ? ", or e-mail it to the folder's own address, which each folder's page shows."
              : "."}
          </p>
          <details open={onIOS} className="mt-4 rounded-lg border border-stone-200 p-3 text-sm">
            <summary className="min-h-11 cursor-pointer py-2 font-medium text-stone-900">
              iPhone and iPad: a Shortcut in the Share menu
            </summary>
            <p className="mt-2 text-stone-700">
              iOS does not let a web app receive shares, so "Share → Thoughtfully" is not offered
              there. A Shortcut does the same:
            </p>
            <ol className="mt-2 list-decimal space-y-1 pl-5 text-stone-700">
              <li>
                In the Shortcuts app, tap +, then open the shortcut's details (ⓘ) and turn on "Show
                in Share Sheet"; let it receive URLs and Safari web pages.
              </li>
              <li>Add the action "URL Encode" with the Shortcut Input.</li>
              <li>
                Add the action "Open URLs" with{" "}
                <code className="break-all rounded-sm bg-stone-100 px-1">
                  {appUrl.replace(/\/+$/, "")}/add?extension=true&amp;url=
                </code>{" "}
                followed by the URL Encoded Text.
              </li>
              <li>
                Name it "Thoughtfully". In Safari, Share → Thoughtfully now opens Add content.
              </li>
            </ol>
          </details>
        </SettingsSection>

        <SettingsSection
          id="two-factor"
          title="Two-factor sign-in"
          description={
            twoFactorOn
              ? "On: log-ins ask for a code from your authenticator app as well as your password."
              : "Off: log-ins ask only for your password. Add a code from an authenticator app so a stolen password alone cannot open your account."
          }
        >
          <Link to="/profile/two-factor" className="btn-secondary mt-4" preventScrollReset>
            {twoFactorOn ? "Manage two-factor sign-in" : "Set up two-factor sign-in"}
          </Link>
        </SettingsSection>

        <SettingsSection
          id="passkeys"
          title="Passkeys"
          description="A passkey signs you in with your device's screen lock (fingerprint, face or PIN), without your password or a code."
        >
          {passkeys.length > 0 ? (
            <ul className="mt-4 divide-y divide-stone-200 text-sm">
              {passkeys.map((key) => (
                <li key={key.id} className="flex flex-wrap items-center gap-x-4 gap-y-1 py-2">
                  <span className="font-medium text-stone-900">{key.name}</span>
                  <span className="text-stone-600">
                    added {key.created} · last used: {key.lastUsed}
                  </span>
                  <Form method="post" action="/passkeys/remove" className="ml-auto">
                    <CsrfInput />
                    <input type="hidden" name="passkeyId" value={key.id} />
                    <SubmitButton pendingText="Removing..." className="btn-secondary">
                      Remove<span className="sr-only"> {key.name}</span>
                    </SubmitButton>
                  </Form>
                </li>
              ))}
            </ul>
          ) : (
            <p className="mt-4 text-sm text-stone-600">No passkeys yet.</p>
          )}
          <AddPasskeyButton />
        </SettingsSection>

        <SettingsSection
          id="api-tokens"
          title="API tokens"
          description="Scripts, phone shortcuts and the Chrome extension use a token to reach your folders through the Thoughtfully API. Each expires (90 days unless you choose otherwise, a year at most); a password reset revokes them all. Revoke one you no longer use."
        >
          {apiTokens.length > 0 ? (
            <ul className="mt-4 divide-y divide-stone-200 text-sm">
              {apiTokens.map((token) => (
                <li key={token.id} className="flex flex-wrap items-center gap-x-4 gap-y-1 py-2">
                  <span className="font-medium text-stone-900">{token.name}</span>
                  <span className="text-stone-600">
                    {token.scope === "write" ? "Read and write" : "Read only"} · created{" "}
                    {token.created} · last used: {token.lastUsed} · {token.expiry}
                  </span>
                  <Form method="post" action="/profile/tokens" className="ml-auto">
                    <CsrfInput />
                    <input type="hidden" name="tokenId" value={token.id} />
                    <SubmitButton
                      pendingText="Revoking..."
                      intent="revoke"
                      className="btn-secondary"
                    >
                      Revoke<span className="sr-only"> {token.name}</span>
                    </SubmitButton>
                  </Form>
                </li>
              ))}
            </ul>
          ) : (
            <p className="mt-4 text-sm text-stone-600">No tokens yet.</p>
          )}
          <Link to="/profile/tokens" className="btn-secondary mt-4" preventScrollReset>
            New API token
          </Link>
        </SettingsSection>

        <SettingsSection
          id="actions"
          title="Account Actions"
          tone="danger"
          description="Deleting your account removes your folders, their contents and every file at once. It cannot be undone."
        >
          <div className="mt-4 flex flex-wrap gap-2">
            {/* A plain link: the ZIP is a download, not a page. */}
            <a href="/profile/export" className="btn-secondary">
              Download my data
            </a>
            <Link
              to="/profile/delete"
              className="btn bg-red-700 text-white hover:bg-red-800"
              preventScrollReset
            >
              Delete Account
            </Link>
          </div>
        </SettingsSection>
      </div>
      <Outlet />
    </AppShell>
  );
}

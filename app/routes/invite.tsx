import {
  type ActionFunctionArgs,
  type LoaderFunctionArgs,
  type MetaFunction,
  redirect,
} from "@remix-run/node";
import { Form, useLoaderData, useNavigation } from "@remix-run/react";
import { useEffect, useRef, useState } from "react";
import { DashboardPage } from "~/components/folders/dashboard";
import { Dialog } from "~/components/ui/dialog";
import { CsrfInput, SubmitButton } from "~/components/ui/forms";
import { readProtectedForm } from "~/modules/auth/csrf.server";
import { requireUser } from "~/modules/auth/session.server";
import {
  ensureReferralCode,
  referralLink,
  referralStats,
} from "~/modules/billing/referrals.server";
import { loadDashboardPage } from "~/modules/dashboard/dashboard.server";
import { LIMITS } from "~/modules/plans/limits";
import { getUsage } from "~/modules/plans/quota.server";
import { formatBytes, pluralize } from "~/utils/format";

export const meta: MetaFunction = () => [{ title: "Invite friends, get folders · Thoughtfully" }];

/**
 * The referral dialog. Opening it changes nothing: a user without a code sees
 * "Create my invite link" (pressed by itself once with JavaScript), whose POST
 * makes the code.
 */
export async function loader({ request }: LoaderFunctionArgs) {
  const user = await requireUser(request);
  const usage = getUsage(user.id);
  const stats = referralStats(user.id, usage);
  return {
    dashboard: await loadDashboardPage(request, user),
    stats,
    link: stats.referralCode ? referralLink(stats.referralCode) : null,
    maxFolders: Number.isFinite(usage.limits.maxFolders) ? usage.limits.maxFolders : null,
  };
}

export async function action({ request }: ActionFunctionArgs) {
  const user = await requireUser(request);
  await readProtectedForm(request);
  ensureReferralCode(user.id);
  return redirect("/invite");
}

function CopyButton({ text }: { text: string }) {
  const [available, setAvailable] = useState(false);
  const [copied, setCopied] = useState(false);
  useEffect(() => setAvailable(Boolean(navigator.clipboard)), []);
  if (!available) return null;
  return (
    <button
      type="button"
      className="btn-secondary shrink-0"
      onClick={async () => {
        await navigator.clipboard.writeText(text);
        setCopied(true);
      }}
    >
      {copied ? "Copied!" : "Copy link"}
    </button>
  );
}

function CreateLink() {
  const form = useRef<HTMLFormElement>(null);
  const navigation = useNavigation();
  const pressed = useRef(false);
  // With JavaScript the code is made as the dialog opens, once.
  useEffect(() => {
    if (pressed.current || navigation.state !== "idle") return;
    pressed.current = true;
    form.current?.requestSubmit();
  }, [navigation.state]);
  return (
    <Form method="post" ref={form} replace>
      <CsrfInput />
      <SubmitButton pendingText="Creating..." className="btn-primary">
        Create my invite link
      </SubmitButton>
    </Form>
  );
}

export default function Invite() {
  const { dashboard, stats, link, maxFolders } = useLoaderData<typeof loader>();
  const closeTo = dashboard.selected ? `/folders/${dashboard.selected.id}` : "/";
  const { bonusFoldersEach, bonusStorageBytesEach, maxBonusFolders, maxBonusStorageBytes } =
    LIMITS.referral;
  return (
    <DashboardPage data={dashboard}>
      <Dialog title="Invite friends, get folders" closeTo={closeTo}>
        <div className="space-y-5 text-sm text-stone-700">
          <p>
            Each friend who signs up through your link and confirms their e-mail gives you{" "}
            <strong className="text-stone-900">
              {pluralize(bonusFoldersEach, "more folder", "more folders")} and{" "}
              {formatBytes(bonusStorageBytesEach)} more storage
            </strong>
            , on top of what your plan includes. Up to {maxBonusFolders / bonusFoldersEach} friends
            count: at most +{maxBonusFolders} folders and +{formatBytes(maxBonusStorageBytes)}.
          </p>
          {link && stats.referralCode ? (
            <div className="space-y-2">
              <p>
                Your code:{" "}
                <strong className="font-mono text-stone-900">{stats.referralCode}</strong>
              </p>
              <label htmlFor="invite-link" className="block font-medium text-stone-800">
                Your invite link
              </label>
              <div className="flex gap-2">
                <input
                  id="invite-link"
                  readOnly
                  value={link}
                  onFocus={(event) => event.currentTarget.select()}
                  className="block w-full min-w-0 rounded-lg border border-stone-300 bg-stone-50 px-3 py-2 font-mono text-xs text-stone-900"
                />
                <CopyButton text={link} />
              </div>
            </div>
          ) : (
            <CreateLink />
          )}
          <dl className="grid grid-cols-3 gap-3 rounded-xl bg-stone-50 p-3">
            <div>
              <dt className="text-xs text-stone-600">Friends joined</dt>
              <dd className="text-lg font-semibold text-stone-900">{stats.completedReferrals}</dd>
            </div>
            <div>
              <dt className="text-xs text-stone-600">Bonus folders</dt>
              <dd className="text-lg font-semibold text-stone-900">+{stats.bonusFolders}</dd>
            </div>
            <div>
              <dt className="text-xs text-stone-600">Bonus storage</dt>
              <dd className="text-lg font-semibold text-stone-900">
                +{formatBytes(stats.bonusStorageBytes)}
              </dd>
            </div>
          </dl>
          {maxFolders !== null ? (
            <p>Your folder limit is now {maxFolders}.</p>
          ) : (
            <p>With Premium your folders are unlimited; the bonus counts if Premium ends.</p>
          )}
        </div>
      </Dialog>
    </DashboardPage>
  );
}

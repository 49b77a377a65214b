import { getFormProps, useForm } from "@conform-to/react";
import { parseWithZod } from "@conform-to/zod/v4";
import {
  type ActionFunctionArgs,
  data,
  type LoaderFunctionArgs,
  type MetaFunction,
  unstable_createMemoryUploadHandler,
} from "@remix-run/node";
import { Form, Link, useActionData, useLoaderData } from "@remix-run/react";
import { AccentColourField } from "~/components/premium/accent-colour-field";
import { TemplateThumbnail } from "~/components/premium/premium-perks";
import { Dialog } from "~/components/ui/dialog";
import { CsrfInput, ErrorList, FormAlert, SubmitButton } from "~/components/ui/forms";
import {
  checkingCsrfBeforeFiles,
  readProtectedForm,
  validateCsrf,
} from "~/modules/auth/csrf.server";
import { requireUser } from "~/modules/auth/session.server";
import { isPremium } from "~/modules/plans/quota.server";
import { chosenAccent } from "~/modules/sending/accent-colour";
import {
  BrandingActionSchema,
  getBranding,
  HEADER_UPLOAD_MAX_BYTES,
  headerImageOf,
  removeHeaderImage,
  saveHeaderImage,
  saveLook,
} from "~/modules/sending/branding.server";
import { templateSamples } from "~/modules/sending/template-samples.server";
import { RuleError } from "~/platform/errors.server";
import { parseIntentForm } from "~/platform/intent.server";
import { BUSY_MESSAGE, isMemoryBudgetSpent } from "~/platform/memory-budget.server";
import { MultipartRefusedError, parseMultipartForm } from "~/platform/multipart.server";
import type { RouteBodyLimit } from "~/platform/route-body-limit";
import { redirectWithToast } from "~/platform/toast.server";
import { z } from "~/platform/zod";

/**
 * Newsletter look (a dialog over Profile Settings): a Premium sender's
 * template, accent colour and header image. Free senders see what it offers
 * and an upgrade prompt; the server refuses their changes as well.
 */
export const meta: MetaFunction = () => [{ title: "Newsletter look · Thoughtfully" }];

const HEADER_FIELD = "headerImage";
/** The image and the CSRF token: anything much bigger is not this form. */
const HEADER_REQUEST_MAX_BYTES = HEADER_UPLOAD_MAX_BYTES + 16 * 1024;
/** The image and the CSRF token, with room: more parts are not this form. */
const HEADER_FORM_MAX_PARTS = 8;

export async function loader({ request }: LoaderFunctionArgs) {
  const user = await requireUser(request);
  const branding = getBranding(user.id);
  const image = branding.headerImage ? headerImageOf(user.id) : null;
  return {
    premium: isPremium(user),
    branding,
    samples: templateSamples(branding.accentColor),
    // At most 100 KB, so it rides in the page (the CSP allows data: images).
    headerImageUrl: image
      ? `data:${image.contentType};base64,${image.content.toString("base64")}`
      : null,
  };
}

function imageProblem(message: string, status: number) {
  return data({ result: null, imageError: message }, { status });
}

/** An empty file input sends an empty part, which conform reads as no file. */
const HeaderImageSchema = z.object({
  [HEADER_FIELD]: z.instanceof(Blob).refine((file) => file.size > 0),
});

async function uploadHeaderImage(request: Request, user: Awaited<ReturnType<typeof requireUser>>) {
  const length = Number(request.headers.get("Content-Length") ?? Number.NaN);
  if (!Number.isFinite(length) || length > HEADER_REQUEST_MAX_BYTES) {
    return imageProblem("The header image can be up to 2 MB", 413);
  }
  let formData: FormData;
  try {
    formData = await parseMultipartForm(
      request,
      checkingCsrfBeforeFiles(
        request,
        unstable_createMemoryUploadHandler({ maxPartSize: HEADER_UPLOAD_MAX_BYTES }),
      ),
      { maxParts: HEADER_FORM_MAX_PARTS, tooManyPartsMessage: "This is not the header image form" },
    );
  } catch (error) {
    // The CSRF refusal, thrown before the image was read, is answered as every other.
    if (!(error instanceof Error)) throw error;
    if (error instanceof MultipartRefusedError) return imageProblem(error.message, 400);
    if (isMemoryBudgetSpent(error)) return imageProblem(BUSY_MESSAGE, 503);
    return imageProblem("The header image can be up to 2 MB", 413);
  }
  await validateCsrf(request, formData);
  const submission = parseWithZod(formData, { schema: HeaderImageSchema });
  if (submission.status !== "success") {
    return imageProblem("Please choose an image for the header", 400);
  }
  const file = submission.value[HEADER_FIELD];
  try {
    await saveHeaderImage(user, Buffer.from(await file.arrayBuffer()));
  } catch (error) {
    if (error instanceof RuleError) return imageProblem(error.message, 400);
    if (isMemoryBudgetSpent(error)) return imageProblem(BUSY_MESSAGE, 503);
    throw error;
  }
  return redirectWithToast("/profile/branding", { title: "Header image saved" });
}

/** The header image streams in multipart; the look's form is a form (docs/decisions/0101-body-limits-by-route.md). */
export const bodyLimit: RouteBodyLimit = {
  multipart: HEADER_REQUEST_MAX_BYTES,
  multipartHeldWhole: true,
};

export async function action({ request }: ActionFunctionArgs) {
  const user = await requireUser(request);
  if (request.headers.get("Content-Type")?.startsWith("multipart/form-data")) {
    return uploadHeaderImage(request, user);
  }
  const submission = parseIntentForm(
    chosenAccent(await readProtectedForm(request)),
    BrandingActionSchema,
  );
  if (submission.status !== "success") {
    return data({ result: submission.reply(), imageError: null }, { status: 400 });
  }
  if (submission.value.intent === "remove-image") {
    removeHeaderImage(user.id);
    return redirectWithToast("/profile/branding", { title: "Header image removed" });
  }
  try {
    saveLook(user, submission.value);
  } catch (error) {
    if (!(error instanceof RuleError)) throw error;
    return data(
      { result: submission.reply({ formErrors: [error.message] }), imageError: null },
      { status: 403 },
    );
  }
  return redirectWithToast("/profile", {
    title: "Newsletter look saved",
    description: "Your next newsletters use it.",
  });
}

export default function NewsletterLook() {
  const { premium, branding, samples, headerImageUrl } = useLoaderData<typeof loader>();
  const actionData = useActionData<typeof action>();
  const [form, fields] = useForm({
    id: "newsletter-look",
    lastResult: actionData?.result,
    defaultValue: { template: branding.template, accentColor: branding.accentColor ?? "" },
  });
  return (
    <Dialog title="Newsletter look" closeTo="/profile">
      {premium ? null : (
        <div className="mb-4 rounded-lg border border-amber-200 bg-amber-50 px-4 py-3 text-sm text-amber-900">
          <p className="font-semibold">A Premium perk</p>
          <p className="mt-1">
            Choose a template, your own accent colour and a header image for your newsletters with
            Premium.
          </p>
          <Link to="/upgrade" className="btn-primary mt-3">
            Upgrade to Premium
          </Link>
        </div>
      )}
      <Form method="post" {...getFormProps(form)} className="space-y-4">
        <CsrfInput />
        <input type="hidden" name="intent" value="save-look" />
        <FormAlert errors={form.errors} />
        <fieldset disabled={!premium} className="space-y-4 disabled:opacity-60">
          <fieldset>
            <legend className="text-sm font-medium text-stone-800">Template</legend>
            <div className="mt-2 space-y-2">
              {samples.map((sample) => (
                <label
                  key={sample.template}
                  className="flex min-h-11 items-start gap-3 rounded-lg border border-stone-200 px-3 py-2 text-sm"
                >
                  <input
                    type="radio"
                    name={fields.template.name}
                    value={sample.template}
                    defaultChecked={(fields.template.initialValue ?? "classic") === sample.template}
                    className="mt-1 h-4 w-4"
                  />
                  <span className="flex-1">
                    <span className="font-medium text-stone-900">{sample.name}</span>
                    <span className="block text-stone-600">{sample.description}</span>
                  </span>
                  <TemplateThumbnail sample={sample} />
                </label>
              ))}
            </div>
            <ErrorList errors={fields.template.errors} />
          </fieldset>
          <AccentColourField
            id={fields.accentColor.id}
            initialValue={fields.accentColor.initialValue ?? ""}
            errors={fields.accentColor.errors}
          />
        </fieldset>
        <div className="flex flex-col-reverse gap-2 sm:flex-row sm:justify-end">
          <Link to="/profile" className="btn-secondary" preventScrollReset>
            Cancel
          </Link>
          {premium ? (
            <SubmitButton pendingText="Saving..." className="btn-primary">
              Save look
            </SubmitButton>
          ) : null}
        </div>
      </Form>

      <section
        aria-labelledby="header-image-heading"
        className="mt-6 border-t border-stone-200 pt-4"
      >
        <h3 id="header-image-heading" className="text-sm font-medium text-stone-800">
          Header image
        </h3>
        <p className="mt-1 text-xs text-stone-600">
          JPEG, PNG, GIF or WebP up to 2 MB. It is made at most 1200×400 px and 100 KB, stored once
          and shown at the top of every newsletter.
        </p>
        {headerImageUrl ? (
          <div className="mt-2 space-y-2">
            <img
              src={headerImageUrl}
              alt="Your header"
              className="max-h-32 rounded-lg border border-stone-200"
            />
            <Form method="post">
              <CsrfInput />
              <SubmitButton
                intent="remove-image"
                pendingText="Removing..."
                className="btn-secondary"
              >
                Remove header image
              </SubmitButton>
            </Form>
          </div>
        ) : null}
        {premium ? (
          <Form method="post" encType="multipart/form-data" className="mt-3 space-y-2">
            <CsrfInput />
            <label htmlFor="header-image" className="sr-only">
              Header image file
            </label>
            <input
              id="header-image"
              type="file"
              name={HEADER_FIELD}
              accept="image/jpeg,image/png,image/gif,image/webp"
              required
              aria-invalid={actionData?.imageError ? true : undefined}
              aria-describedby={actionData?.imageError ? "header-image-error" : undefined}
              className="block w-full text-sm text-stone-700"
            />
            <ErrorList
              id="header-image-error"
              errors={actionData?.imageError ? [actionData.imageError] : null}
            />
            <SubmitButton pendingText="Uploading..." className="btn-secondary">
              Upload header image
            </SubmitButton>
          </Form>
        ) : null}
      </section>
    </Dialog>
  );
}

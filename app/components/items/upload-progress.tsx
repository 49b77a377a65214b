import type { SubmissionResult } from "@conform-to/react";
import { type FormEvent, useState } from "react";
// The single-fetch wire format Remix itself decodes (@remix-run/react depends on this version).
import { decode } from "turbo-stream";
import type { KeptFiles, UploadProblem } from "~/modules/items/item-validation";
import { formatBytes } from "~/utils/format";

/**
 * What an upload action answers when it does not redirect: the form's reply, the upload's
 * problem, and the files an Add sheet keeps from a refused form.
 */
export type UploadAnswer = {
  result?: SubmissionResult<string[]> | null;
  problem?: UploadProblem | null;
  kept?: KeptFiles | null;
};

type Progress = { sent: number; total: number };

const LOST = {
  title: "Upload Failed",
  description: "The upload did not finish. Please check your connection and try again.",
};

/** The URL Remix posts a form's submission to with single fetch: the action's path plus `.data`. */
export function singleFetchUrl(action: string) {
  const url = new URL(action, window.location.href);
  url.pathname = url.pathname === "/" ? "/_root.data" : `${url.pathname.replace(/\/$/, "")}.data`;
  return url;
}

/** A single-fetch action answer: a redirect to follow, or the action's data. */
export async function readActionAnswer(
  response: Response,
): Promise<{ redirect: string } | { data: UploadAnswer } | null> {
  const body = response.body;
  if (!body) return null;
  const { value } = await decode(body);
  if (typeof value !== "object" || value === null) return null;
  if ("redirect" in value && typeof value.redirect === "string") {
    return { redirect: value.redirect };
  }
  if ("data" in value && typeof value.data === "object" && value.data !== null) {
    return { data: value.data as UploadAnswer };
  }
  return null;
}

/**
 * An upload refused as it streams in (a disguised photo) is answered with the fields the server
 * read before the refusal; those after the file are filled in as they were sent, so the form's
 * state matches what the fields still hold (their counters, their next check).
 */
function withFieldsUnread(result: UploadAnswer["result"], sent: FormData) {
  if (!result) return result;
  const initialValue = { ...result.initialValue };
  sent.forEach((value, name) => {
    if (typeof value === "string" && !(name in initialValue)) initialValue[name] = value;
  });
  return { ...result, initialValue };
}

/**
 * With JavaScript, a form with files is sent by XMLHttpRequest, whose `upload` reports the
 * bytes sent (fetch reports none): the same form data to the same action, at the URL Remix
 * would use. A redirect is followed as a page load, as the form without JavaScript would, so the
 * page lands on the saved item as its `:target`; any other answer is handed back to the form
 * (docs/decisions/0137-uploads-you-can-watch.md).
 */
export function useUploadWithProgress() {
  const [progress, setProgress] = useState<Progress | null>(null);
  const [answer, setAnswer] = useState<UploadAnswer | null>(null);

  function fail() {
    setProgress(null);
    setAnswer({ result: null, problem: LOST });
  }

  /**
   * The form's submit handler: `validate` (conform's) first; if it lets the form go, sends it.
   * `taken` runs once the server has saved it, before the page leaves: the page load that
   * follows is not a Remix navigation, so nothing else sees the save happen.
   */
  function onSubmit(
    event: FormEvent<HTMLFormElement>,
    validate: (event: FormEvent<HTMLFormElement>) => void,
    taken: () => Promise<unknown> = async () => {},
  ) {
    if (progress) {
      // Enter pressed again while sending: one upload at a time.
      event.preventDefault();
      return;
    }
    validate(event);
    if (event.defaultPrevented) return;
    event.preventDefault();
    const form = event.currentTarget;
    const submitter = (event.nativeEvent as SubmitEvent).submitter;
    const body = new FormData(form, submitter);
    const xhr = new XMLHttpRequest();
    xhr.open("POST", singleFetchUrl(form.action));
    xhr.responseType = "arraybuffer";
    xhr.upload.addEventListener("progress", (progressEvent) => {
      if (progressEvent.lengthComputable) {
        setProgress({ sent: progressEvent.loaded, total: progressEvent.total });
      }
    });
    xhr.addEventListener("load", () => {
      (xhr.response instanceof ArrayBuffer
        ? readActionAnswer(new Response(xhr.response))
        : Promise.resolve(null)
      )
        .then((read) => {
          if (!read) return fail();
          if ("redirect" in read) {
            const leave = () => window.location.assign(read.redirect);
            taken().then(leave, leave);
            return;
          }
          setProgress(null);
          setAnswer({ ...read.data, result: withFieldsUnread(read.data.result, body) });
        })
        .catch(fail);
    });
    xhr.addEventListener("error", fail);
    xhr.addEventListener("abort", fail);
    setProgress({ sent: 0, total: 0 });
    xhr.send(body);
  }

  return { progress, answer, onSubmit };
}

/** The bytes sent of the upload in flight, then what happens while the server saves it. */
export function UploadProgress({ progress }: { progress: Progress }) {
  const percent =
    progress.total > 0 ? Math.min(100, Math.floor((progress.sent / progress.total) * 100)) : 0;
  const text =
    percent === 100
      ? "Uploaded (100%). Saving…"
      : `Uploading: ${formatBytes(progress.sent)} of ${formatBytes(progress.total)} (${percent}%)`;
  return (
    <div>
      <div
        role="progressbar"
        aria-label="Upload progress"
        aria-valuemin={0}
        aria-valuemax={100}
        aria-valuenow={percent}
        aria-valuetext={text}
        className="h-2 w-full overflow-hidden rounded-full bg-stone-200"
      >
        <div className="h-full bg-brand-700" style={{ width: `${percent}%` }} />
      </div>
      <p className="mt-1 text-xs text-stone-700">{text}</p>
    </div>
  );
}

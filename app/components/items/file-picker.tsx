import { type ChangeEvent, useCallback, useEffect, useRef, useState } from "react";
import { useHydrated } from "remix-utils/use-hydrated";
import { FILES_KEPT } from "~/components/offline/draft-on-device";
import { titleFromFileName } from "~/modules/items/item-titles";
import type { UploadProblem } from "~/modules/items/item-validation";
import {
  checkChosenFiles,
  type FileCheckResult,
  INVALID_FILE_TYPES,
  maxFilesFor,
  sizeBarLevel,
  type UploadKind,
} from "~/modules/uploads/file-checks";
import { deviceTimeZone } from "~/platform/dates";
import { formatBytes } from "~/utils/format";

/** Room a pending upload goes into: the folder's (or the account's) bytes in use and its limit. */
export type UploadCapacity = { usedBytes: number; limitBytes: number; label: string };

const ACCEPT: Record<UploadKind, string> = {
  // HEIC by name too: browsers off Apple's systems often give it no type.
  photo: "image/jpeg,image/png,image/gif,image/webp,image/heic,image/heif,.heic,.heif",
  file: ".pdf,.doc,.docx,application/pdf,application/msword,application/vnd.openxmlformats-officedocument.wordprocessingml.document",
  video: "video/mp4,video/quicktime,video/webm,.mp4,.m4v,.mov,.webm",
};

const BAR_COLOURS = { normal: "bg-brand-600", warning: "bg-amber-500", over: "bg-red-600" };

/**
 * The photo or file field. Without JavaScript it is a plain multiple file
 * input and the server says what it refuses. With it, each choice is checked
 * at once (file-checks.ts): refused files are named and left out, the kept
 * ones are listed with a Remove button each and are what the form sends, and
 * a size bar forecasts where the upload would take the folder. Photos show a thumbnail as soon as
 * they are chosen. A file the server refused is marked under the field and, with JavaScript,
 * dropped from the choice, so sending again does not fail again
 * (docs/decisions/0137-uploads-you-can-watch.md).
 */
export function FilePicker({
  kind,
  id,
  label,
  required,
  alreadyStored,
  hint,
  capacity,
  refused,
}: {
  kind: UploadKind;
  id: string;
  label: string;
  required: boolean;
  /** Files the item already has (editing): they count towards the per-item limit. */
  alreadyStored: number;
  hint: string;
  capacity?: UploadCapacity | null;
  /** The server's last refusal; its `fileName` is the file refused. One object per answer. */
  refused?: UploadProblem | null;
}) {
  const hydrated = useHydrated();
  const input = useRef<HTMLInputElement>(null);
  const [kept, setKept] = useState<File[]>([]);
  const [problems, setProblems] = useState<Omit<FileCheckResult<File>, "kept"> | null>(null);
  const [refusedShown, setRefusedShown] = useState(refused?.fileName ? refused : null);

  /** What the form sends is the input's own FileList: make it hold exactly the kept files. */
  const keep = useCallback((files: File[]) => {
    const transfer = new DataTransfer();
    for (const file of files) transfer.items.add(file);
    if (input.current) {
      input.current.files = transfer.files;
      // The form's draft on the device keeps them too (draft-on-device.tsx).
      input.current.dispatchEvent(new Event(FILES_KEPT, { bubbles: true }));
    }
    setKept(files);
  }, []);

  useEffect(() => {
    const name = refused?.fileName;
    setRefusedShown(name ? refused : null);
    if (!name || !input.current) return;
    keep(Array.from(input.current.files ?? []).filter((file) => file.name !== name));
  }, [refused, keep]);

  function check(chosen: HTMLInputElement, alreadyKept: File[]) {
    const { kept: next, ...found } = checkChosenFiles(
      kind,
      alreadyKept,
      Array.from(chosen.files ?? []),
      alreadyStored,
    );
    keep(next);
    setRefusedShown(null);
    // The app knows a name for it: an empty title takes the first file's, which the person can change.
    const title = chosen.form?.elements.namedItem("title");
    if (title instanceof HTMLInputElement && !title.value.trim() && next[0]) {
      title.value = titleFromFileName(next[0].name, {
        kind,
        date: new Date(next[0].lastModified),
        timeZone: deviceTimeZone(),
      });
    }
    const anything = found.invalidNames.length > 0 || found.tooLarge.length > 0;
    setProblems(anything || found.limitMessage ? found : null);
  }

  function onChoose(event: ChangeEvent<HTMLInputElement>) {
    check(event.currentTarget, kept);
  }

  // On a slow phone the photo can be picked before the page's JavaScript runs: check what the
  // input already holds once it does, as if just chosen.
  // biome-ignore lint/correctness/useExhaustiveDependencies: once, when the page becomes interactive
  useEffect(() => {
    if (hydrated && input.current?.files?.length) check(input.current, []);
  }, [hydrated]);

  const noun = kind === "photo" ? "photos" : "files";
  const pendingBytes = kept.reduce((sum, file) => sum + file.size, 0);
  return (
    <div>
      <label htmlFor={id} className="block text-sm font-medium text-stone-800">
        {label}
      </label>
      <input
        ref={input}
        id={id}
        type="file"
        name="files"
        multiple
        accept={ACCEPT[kind]}
        required={required}
        onChange={hydrated ? onChoose : undefined}
        className="mt-1 block w-full rounded-lg border border-dashed border-stone-400 bg-white px-3 py-6 text-sm text-stone-700 file:mr-3 file:rounded-full file:border-0 file:bg-brand-700 file:px-4 file:py-2 file:text-white"
      />
      <p className="mt-1 text-xs text-stone-600">{hint}</p>
      {problems ? (
        <div
          role="alert"
          className="mt-2 rounded-lg border border-red-200 bg-red-50 px-3 py-2 text-sm"
        >
          {problems.invalidNames.length > 0 ? (
            <>
              <p className="font-semibold text-red-900">{INVALID_FILE_TYPES}</p>
              <ul aria-label={INVALID_FILE_TYPES} className="list-disc pl-5 text-red-800">
                {problems.invalidNames.map((name) => (
                  <li key={name}>{name}</li>
                ))}
              </ul>
            </>
          ) : null}
          {problems.tooLarge.map((message) => (
            <p key={message} className="text-red-800">
              {message}
            </p>
          ))}
          {problems.limitMessage ? (
            <p className="font-semibold text-red-900">{problems.limitMessage}</p>
          ) : null}
        </div>
      ) : null}
      {refusedShown ? (
        <ul aria-label="Not uploaded" className="mt-2 space-y-1">
          <li
            data-refused=""
            className="rounded-lg border border-red-300 bg-red-50 px-3 py-2 text-sm text-red-900"
          >
            <span className="font-semibold">Not uploaded: {refusedShown.fileName}</span>
            <span className="block text-red-800">{refusedShown.description}</span>
          </li>
        </ul>
      ) : null}
      {hydrated && kept.length > 0 ? (
        <>
          <ul aria-label="Ready to upload" className="mt-2 space-y-1">
            {kept.map((file, index) => (
              <li
                // A name can be chosen twice; its place in the list tells the two apart.
                // biome-ignore lint/suspicious/noArrayIndexKey: the list only changes by whole re-renders of `kept`
                key={`${index}-${file.name}`}
                className="flex items-center justify-between gap-2 rounded-lg border border-stone-200 bg-white px-3 py-1 text-sm"
              >
                {kind === "photo" ? <Thumbnail file={file} /> : null}
                <span className="min-w-0 flex-1 truncate">
                  {file.name} ({formatBytes(file.size)})
                </span>
                <button
                  type="button"
                  onClick={() => {
                    keep(kept.filter((_, at) => at !== index));
                    setProblems(null);
                  }}
                  className="min-h-11 rounded-lg px-3 text-sm font-medium text-stone-700 hover:bg-stone-100"
                  aria-label={`Remove ${file.name}`}
                >
                  Remove
                </button>
              </li>
            ))}
          </ul>
          <p className="mt-1 text-xs text-stone-600">
            {kept.length} of {maxFilesFor(kind) - alreadyStored} {noun} chosen
          </p>
          {capacity ? <DraftSizeBar capacity={capacity} pendingBytes={pendingBytes} /> : null}
        </>
      ) : null}
    </div>
  );
}

/** A chosen photo as it is, before any upload: read from the device, released when it goes. */
function Thumbnail({ file }: { file: File }) {
  const [url, setUrl] = useState<string | null>(null);
  useEffect(() => {
    const objectUrl = URL.createObjectURL(file);
    setUrl(objectUrl);
    return () => URL.revokeObjectURL(objectUrl);
  }, [file]);
  if (!url) return <span className="h-12 w-12 shrink-0 rounded-md bg-stone-100" />;
  return (
    <img
      src={url}
      alt={`Preview of ${file.name}`}
      width={48}
      height={48}
      className="h-12 w-12 shrink-0 rounded-md object-cover"
    />
  );
}

/**
 * The draft size bar (docs/product-rules.md, Uploads): a forecast of where this upload takes the
 * folder, not its progress; amber above 80 %, red above 100 %.
 */
function DraftSizeBar({
  capacity,
  pendingBytes,
}: {
  capacity: UploadCapacity;
  pendingBytes: number;
}) {
  const total = capacity.usedBytes + pendingBytes;
  const level = sizeBarLevel(total, capacity.limitBytes);
  const percent = Math.round((total / capacity.limitBytes) * 100);
  const text = `Forecast: ${formatBytes(total)} of ${formatBytes(capacity.limitBytes)} ${capacity.label} after this upload`;
  return (
    <div className="mt-2">
      {/* A meter, not a progressbar: it measures storage; the upload's progress is its own bar. */}
      {/* biome-ignore lint/a11y/useSemanticElements: the level's colours, which <meter> leaves to the browser */}
      <div
        role="meter"
        aria-label="Storage forecast"
        aria-valuemin={0}
        aria-valuemax={100}
        aria-valuenow={Math.min(percent, 100)}
        aria-valuetext={text}
        data-level={level}
        className="h-2 w-full overflow-hidden rounded-full bg-stone-200"
      >
        <div
          className={`h-full ${BAR_COLOURS[level]}`}
          style={{ width: `${Math.min(percent, 100)}%` }}
        />
      </div>
      <p className={`mt-1 text-xs ${level === "over" ? "text-red-700" : "text-stone-600"}`}>
        {text} ({percent}%){level === "over" ? ": too big to upload here" : null}
      </p>
    </div>
  );
}

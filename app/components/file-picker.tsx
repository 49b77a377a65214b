import { type ChangeEvent, useRef, useState } from "react";
import { useHydrated } from "remix-utils/use-hydrated";
import {
  checkChosenFiles,
  type FileCheckResult,
  INVALID_FILE_TYPES,
  maxFilesFor,
  sizeBarLevel,
  type UploadKind,
} from "~/modules/uploads/file-checks";
import { formatBytes } from "~/utils/format";

/** Room a pending upload goes into: the folder's (or the account's) bytes in use and its limit. */
export type UploadCapacity = { usedBytes: number; limitBytes: number; label: string };

const ACCEPT: Record<UploadKind, string> = {
  photo: "image/jpeg,image/png,image/gif,image/webp",
  file: ".pdf,.doc,.docx,application/pdf,application/msword,application/vnd.openxmlformats-officedocument.wordprocessingml.document",
};

const BAR_COLOURS = { normal: "bg-brand-600", warning: "bg-amber-500", over: "bg-red-600" };

/**
 * The photo or file field. Without JavaScript it is a plain multiple file
 * input and the server says what it refuses. With it, each choice is checked
 * at once (file-checks.ts): refused files are named and left out, the kept
 * ones are listed with a Remove button each and are what the form sends, and
 * a size bar shows where the upload would take the folder.
 */
export function FilePicker({
  kind,
  id,
  label,
  required,
  alreadyStored,
  hint,
  capacity,
}: {
  kind: UploadKind;
  id: string;
  label: string;
  required: boolean;
  /** Files the item already has (editing): they count towards the per-item limit. */
  alreadyStored: number;
  hint: string;
  capacity?: UploadCapacity | null;
}) {
  const hydrated = useHydrated();
  const input = useRef<HTMLInputElement>(null);
  const [kept, setKept] = useState<File[]>([]);
  const [problems, setProblems] = useState<Omit<FileCheckResult<File>, "kept"> | null>(null);

  /** What the form sends is the input's own FileList: make it hold exactly the kept files. */
  function keep(files: File[]) {
    const transfer = new DataTransfer();
    for (const file of files) transfer.items.add(file);
    if (input.current) input.current.files = transfer.files;
    setKept(files);
  }

  function onChoose(event: ChangeEvent<HTMLInputElement>) {
    const { kept: next, ...found } = checkChosenFiles(
      kind,
      kept,
      Array.from(event.currentTarget.files ?? []),
      alreadyStored,
    );
    keep(next);
    const anything = found.invalidNames.length > 0 || found.tooLarge.length > 0;
    setProblems(anything || found.limitMessage ? found : null);
  }

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
                <span className="min-w-0 truncate">
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

/** The draft size bar (docs/product-rules.md, Uploads): where this upload takes the folder; amber above 80 %, red above 100 %. */
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
  const text = `${formatBytes(total)} of ${formatBytes(capacity.limitBytes)} ${capacity.label} with this upload`;
  return (
    <div className="mt-2">
      <div
        role="progressbar"
        aria-label="Size with this upload"
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

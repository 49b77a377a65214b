import type { ReactNode } from "react";
import type { ItemView } from "~/modules/dashboard/dashboard.server";
import { formatBytes } from "~/utils/format";

const EXPECTATION_LABELS: Record<NonNullable<ItemView["responseExpectation"]>, string> = {
  expecting: "Hoping for a reply",
  not_expecting: "No reply needed",
};

/** A photo or file of an item; `key` is null once a sent item's files are no longer stored. */
export type ItemFileView = {
  key: string | null;
  thumbnailKey: string | null;
  name: string;
  size: number;
};

/** What an item shows, whether saved (the dashboard) or sent (a sent issue); absent fields are left out. */
export type ItemContentView = Pick<
  ItemView,
  "type" | "title" | "urls" | "commentText" | "questionText" | "responseExpectation"
> & {
  note?: string | null;
  files?: ItemFileView[];
  /** A video still being prepared: how far, in percent. */
  videoPreparing?: number;
  /** A video that could not be prepared: why. */
  videoRefused?: string;
};

function FileLine({ file }: { file: ItemFileView }) {
  return (
    <li>
      {file.key ? (
        <a href={`/files/${file.key}`} className="item-url">
          {file.name}
        </a>
      ) : (
        `${file.name} (no longer stored)`
      )}{" "}
      <span className="text-stone-500">{`(${formatBytes(file.size)})`}</span>
    </li>
  );
}

function Photos({ files }: { files: ItemFileView[] }) {
  return (
    <ul className="flex flex-wrap gap-2">
      {files.map((file, index) =>
        file.key ? (
          // biome-ignore lint/suspicious/noArrayIndexKey: a file's place in its item is its identity
          <li key={index}>
            <a href={`/files/${file.key}`} target="_blank" rel="noreferrer">
              <img
                src={`/files/${file.thumbnailKey ?? file.key}`}
                alt={file.name}
                loading="lazy"
                className="h-24 w-24 rounded-lg border border-stone-200 object-cover"
              />
            </a>
          </li>
        ) : (
          // biome-ignore lint/suspicious/noArrayIndexKey: a file's place in its item is its identity
          <FileLine key={index} file={file} />
        ),
      )}
    </ul>
  );
}

/** A prepared clip as its poster, linked to the MP4; until then its progress or its refusal. */
function Video({ item, files }: { item: ItemContentView; files: ItemFileView[] }) {
  if (item.videoPreparing !== undefined) {
    return (
      <p role="status" className="flex items-center gap-2 text-sm text-stone-700">
        Preparing video… {item.videoPreparing}%
        <progress max={100} value={item.videoPreparing} className="h-2 w-24" />
      </p>
    );
  }
  if (item.videoRefused !== undefined) {
    return <p className="text-sm text-red-700">{item.videoRefused}</p>;
  }
  const clip = files[0];
  if (!clip?.key) return clip ? <FileLine file={clip} /> : null;
  return (
    <a href={`/files/${clip.key}`} target="_blank" rel="noreferrer" className="inline-block">
      {clip.thumbnailKey ? (
        <img
          src={`/files/${clip.thumbnailKey}`}
          alt={`${clip.name} (video)`}
          loading="lazy"
          className="h-24 w-40 rounded-lg border border-stone-200 object-cover"
        />
      ) : (
        clip.name
      )}
    </a>
  );
}

/**
 * What an item carries, drawn one way wherever it appears: its kind, title,
 * addresses, note, photos or files, comment and question. The dashboard's card
 * adds its link preview (`preview`, under the title) and its controls around it.
 */
export function ItemContent({
  item,
  preview,
  titleTag: Title = "h3",
}: {
  item: ItemContentView;
  preview?: ReactNode;
  /** The title's heading level: one below the heading of the list it is in. */
  titleTag?: "h3" | "h4";
}) {
  const files = item.files ?? [];
  return (
    <div className="min-w-0 flex-1 space-y-2">
      <p className="item-type">{item.type}</p>
      <Title className="item-title">{item.title}</Title>
      {preview}
      {item.urls && item.urls.length > 0 ? (
        <ul className="item-urls space-y-0.5 text-sm">
          {item.urls.map((url, index) => (
            // biome-ignore lint/suspicious/noArrayIndexKey: the same address may be saved twice
            <li key={index}>
              <a href={url} target="_blank" rel="noopener noreferrer nofollow">
                {url}
              </a>
            </li>
          ))}
        </ul>
      ) : null}
      {item.note ? <p className="whitespace-pre-line text-sm text-stone-700">{item.note}</p> : null}
      {item.type === "photo" && files.length > 0 ? <Photos files={files} /> : null}
      {item.type === "video" ? <Video item={item} files={files} /> : null}
      {item.type === "file" && files.length > 0 ? (
        <ul className="space-y-0.5 text-sm">
          {files.map((file, index) => (
            // biome-ignore lint/suspicious/noArrayIndexKey: a file's place in its item is its identity
            <FileLine key={index} file={file} />
          ))}
        </ul>
      ) : null}
      {item.commentText ? (
        <p className="text-sm text-stone-700">
          <span className="font-medium">Comment:</span>
          {` ${item.commentText}`}
        </p>
      ) : null}
      {item.questionText ? (
        <p className="text-sm text-stone-700">
          <span className="font-medium">Question:</span>
          {` ${item.questionText}`}
        </p>
      ) : null}
      {item.responseExpectation ? (
        <p className="text-xs text-stone-600">{EXPECTATION_LABELS[item.responseExpectation]}</p>
      ) : null}
    </div>
  );
}

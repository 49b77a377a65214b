import { LIMITS } from "~/modules/plans/limits";
import { formatDay } from "~/platform/dates";

/** A title of any length cut to the limit, with an ellipsis when cut; whitespace folded. */
export function clipTitle(title: string) {
  const characters = [...title.replace(/\s+/g, " ").trim()];
  const max = LIMITS.item.titleMaxLength;
  return characters.length > max
    ? `${characters.slice(0, max - 1).join("")}…`
    : characters.join("");
}

/**
 * The names cameras and phones give a picture, which say nothing about it: "IMG_2041",
 * "IMG_E2041", "IMG-20261105-WA0001" (WhatsApp), "PXL_20261105_093012345.MP" (Pixel),
 * "20261105_093012" (Samsung), "1000012345" (Android's photo picker), "DSC01234",
 * "DSCN0042", "P1010001", "GOPR0042", "image", "photo0".
 */
const CAMERA_NAME =
  /^(?:(?:IMG|VID|MVIMG|PXL|PANO|BURST|DSC[NF]?|DJI|GOPR|P)?[\s_-]*E?\d[\d\s_.-]*(?:WA\d+)?(?:\.MP)?(?:\s*\(\d+\))?|(?:image|photo|img|picture)[\s_-]*\d*)$/i;

export function isCameraFileName(name: string) {
  const stem = name.replace(/\.[^.]*$/, "") || name;
  return CAMERA_NAME.test(stem.trim());
}

/**
 * A photo's or file's title before the person writes one
 * (docs/decisions/0134-quick-saves-wait-for-a-note.md): "summer-menu.v2.pdf" reads "summer
 * menu.v2". A photo named by its camera ("IMG_2041.jpg") is titled by its day instead,
 * "Photo, Wed 4 Nov": the file's own date where the device gives one, else the day it is
 * saved, in the saver's zone. Shared: the API's quick saves use it, and the upload dialogs
 * fill an empty title with it.
 */
export function titleFromFileName(
  name: string,
  photo?: { kind: "photo" | "file" | "video"; date: Date; timeZone: string },
) {
  if (photo && photo.kind !== "file" && isCameraFileName(name)) {
    const thisYear = photo.date.getFullYear() === new Date().getFullYear();
    const noun = photo.kind === "video" ? "Video" : "Photo";
    return `${noun}, ${formatDay(photo.date, photo.timeZone, { year: !thisYear })}`;
  }
  const base = name.replace(/\.[^.]*$/, "") || name;
  return clipTitle(base.replace(/[_-]+/g, " "));
}

/**
 * The title the app gives photos, a clip or files left without one: the first file's, as
 * titleFromFileName words it, a camera's name dated by the day the photo was taken where its
 * camera wrote it (`takenOn`), else by `at`, the day it is shared or saved in the sender's zone.
 * The share page, the API's quick saves and the Add sheets (JavaScript off) all title by it
 * (docs/decisions/0248-the-server-fills-a-photos-title-and-keeps-refused-files.md).
 */
export function titleForUpload(
  kind: "photo" | "file" | "video",
  files: { name: string; takenOn?: string }[],
  at: { date: Date; timeZone: string },
) {
  const [first] = files;
  if (!first) return "";
  // The camera's clock has no zone: its day, at noon and read in UTC, is that day wherever.
  const day = first.takenOn
    ? { date: new Date(`${first.takenOn}T12:00:00Z`), timeZone: "UTC" }
    : at;
  return clipTitle(titleFromFileName(first.name, { kind, ...day }));
}

/** What a page's title puts between itself and its site's name: "Title | The Guardian". */
const SITE_SEPARATOR = /\s+(?:[|\-–—·•]|::)\s+(?=[^|\-–—·•]*$)/u;

/** A name reduced to what compares: "The Guardian" and "theguardian" both read "guardian". */
function nameKey(name: string) {
  return name
    .toLowerCase()
    .replace(/[^\p{L}\p{N}]+/gu, "")
    .replace(/^the(?=\p{L}{3})/u, "");
}

/** The name a host goes by: "www.theguardian.com" → "guardian", "news.bbc.co.uk" → "bbc". */
function hostName(url: string) {
  let host: string;
  try {
    host = new URL(url).hostname;
  } catch {
    return "";
  }
  const common = new Set(["www", "m", "com", "org", "net", "co", "ac", "gov", "edu"]);
  const labels = host
    .split(".")
    .slice(0, -1)
    .filter((label) => !common.has(label));
  return nameKey(labels.at(-1) ?? "");
}

/**
 * A page's title without the site's name it ends with ("Bread for beginners | The
 * Guardian" → "Bread for beginners", "Lullaby - YouTube" → "Lullaby"): the card and the
 * e-mail already say which site a link is from. Only a last part that names the site (its
 * Open Graph site name, or a name in its address) is cut, and never the whole title.
 */
export function withoutSiteName(title: string, url: string, siteName?: string | null) {
  const match = SITE_SEPARATOR.exec(title);
  if (!match) return title;
  const kept = title.slice(0, match.index).trimEnd();
  const last = nameKey(title.slice(match.index + match[0].length));
  if (!kept.trim() || !last) return title;
  const names = [hostName(url), siteName ? nameKey(siteName) : ""].filter(
    (name) => name.length >= 3,
  );
  const namesSite = names.some((name) => last.startsWith(name));
  return namesSite ? kept : title;
}

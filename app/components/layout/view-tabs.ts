/**
 * Which of the two views a page belongs to, for the tab that marks it
 * (docs/decisions/0149-save-is-the-archive.md). Share is where things are
 * saved to send: the dashboard, a folder and its dialogs, adding and
 * uploading. Save is what was sent: the archive and a folder's sent issues.
 * Account, billing and admin pages belong to neither.
 */
export type View = "share" | "save";

export function viewOf(pathname: string): View | null {
  const path = pathname.replace(/\/+$/, "") || "/";
  if (path === "/save" || path.startsWith("/save/")) return "save";
  if (/^\/folders\/[^/]+\/sent(\/|$)/.test(path)) return "save";
  if (path === "/" || /^\/(folders|add|upload)(\/|$)/.test(path)) return "share";
  return null;
}

import { LIMITS } from "~/modules/plans/limits";

/**
 * The bookmarklet: the extension's job in any browser. On the page it is
 * clicked on, it opens `/add` with the page's address, its title and any
 * selected text as the note, exactly as the extension's Save does. It runs on
 * the other site, so our own Content-Security-Policy does not apply to it.
 */
export function bookmarkletCode(appUrl: string) {
  const addUrl = JSON.stringify(`${appUrl.replace(/\/+$/, "")}/add`);
  const code =
    `(()=>{const u=new URL(${addUrl}),p=u.searchParams;` +
    `p.set("extension","true");p.set("url",location.href);p.set("title",document.title);` +
    `const n=String(getSelection()).trim().slice(0,${LIMITS.item.textMaxLength});` +
    `if(n)p.set("note",n);if(!window.open(u.href,"_blank"))location.href=u.href})()`;
  // A javascript: URL is percent-decoded once before it runs.
  return `javascript:${code.replace(/%/g, "%25")}`;
}

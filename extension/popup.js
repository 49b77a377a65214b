import { addPageUrl, NOTE_MAX_LENGTH, readAppUrl } from "./shared.js";

/**
 * The toolbar popup. Clicking the icon grants `activeTab`, which lets the
 * popup read the current tab's address and title, nothing more. Save opens
 * the app's /add page in a new tab; the app does the rest (sign-in, folder).
 *
 * `?tab=<id>` names the tab explicitly: the browser test opens this page as a
 * tab of its own, where "the active tab" would be the popup itself.
 */
const elements = {
  form: document.getElementById("capture"),
  title: document.getElementById("title"),
  url: document.getElementById("url"),
  note: document.getElementById("note"),
  problem: document.getElementById("problem"),
  save: document.getElementById("save"),
  appUrl: document.getElementById("app-url"),
};

async function currentTab() {
  const requested = Number(new URLSearchParams(location.search).get("tab"));
  if (Number.isInteger(requested) && requested > 0) return chrome.tabs.get(requested);
  const [tab] = await chrome.tabs.query({ active: true, currentWindow: true });
  return tab;
}

function showProblem(message) {
  elements.problem.textContent = message;
  elements.problem.hidden = false;
}

async function start() {
  const [appUrl, tab] = await Promise.all([readAppUrl(), currentTab()]);
  elements.appUrl.textContent = appUrl;
  const pageUrl = tab?.url ?? "";
  elements.title.value = tab?.title ?? "";
  elements.url.textContent = pageUrl || "(no address)";
  if (!/^https?:\/\//i.test(pageUrl)) {
    showProblem("Only web pages (http or https) can be saved.");
    return;
  }
  elements.save.disabled = false;
  elements.note.focus();
  elements.form.addEventListener("submit", async (event) => {
    event.preventDefault();
    elements.save.disabled = true;
    const target = addPageUrl(appUrl, {
      url: pageUrl,
      title: elements.title.value.trim(),
      note: elements.note.value.trim().slice(0, NOTE_MAX_LENGTH),
    });
    await chrome.tabs.create({ url: target, index: tab.index + 1 });
    window.close();
  });
}

start().catch((error) => showProblem(`Could not read this tab: ${error.message}`));

import {
  ApiError,
  addPageUrl,
  callApi,
  forgetConnection,
  NOTE_MAX_LENGTH,
  readAppUrl,
  readConnection,
  startConnecting,
} from "./shared.js";

/**
 * The toolbar popup. Clicking the icon grants `activeTab`, which lets the
 * popup read the current tab's address and title, nothing more.
 *
 * Connected (a token from the app's Connect page), it lists the user's
 * folders through the API, remembers the last one chosen and saves the page
 * there in one click, showing the answer here. Not connected, Save opens the
 * app's /add page in a new tab, and the app does the rest.
 *
 * `?tab=<id>` names the tab explicitly: the browser test opens this page as a
 * tab of its own, where "the active tab" would be the popup itself.
 */
const elements = {
  form: document.getElementById("capture"),
  title: document.getElementById("title"),
  url: document.getElementById("url"),
  folderField: document.getElementById("folder-field"),
  folder: document.getElementById("folder"),
  note: document.getElementById("note"),
  noteHint: document.getElementById("note-hint"),
  problem: document.getElementById("problem"),
  result: document.getElementById("result"),
  save: document.getElementById("save"),
  connectOffer: document.getElementById("connect-offer"),
  connect: document.getElementById("connect"),
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
  elements.problem.hidden = !message;
}

/** The user's folders in the select, the last one used chosen; false when the token is refused. */
async function showFolders(connection) {
  try {
    const folders = await callApi(connection, "/folders");
    const { lastFolderId } = await chrome.storage.local.get("lastFolderId");
    elements.folder.replaceChildren(
      ...folders.map((folder) => new Option(folder.name, String(folder.id))),
    );
    if (folders.some((folder) => folder.id === lastFolderId)) {
      elements.folder.value = String(lastFolderId);
    }
    if (folders.length === 0) showProblem("Create a folder in Thoughtfully first.");
    elements.folderField.hidden = false;
    elements.noteHint.textContent = "(sent as your comment)";
    return true;
  } catch (error) {
    if (error instanceof ApiError && error.status === 401) {
      await forgetConnection();
      return false;
    }
    throw error;
  }
}

async function saveInPlace(connection, page) {
  const folderId = Number(elements.folder.value);
  const note = elements.note.value.trim().slice(0, NOTE_MAX_LENGTH);
  try {
    await callApi(connection, `/folders/${folderId}/items`, {
      method: "POST",
      body: JSON.stringify({
        type: "link",
        title: elements.title.value.trim(),
        urls: [page.url],
        // Without a note the link is still saved; it waits for one before it is sent.
        addComment: note !== "",
        commentText: note,
      }),
    });
    await chrome.storage.local.set({ lastFolderId: folderId });
    showProblem("");
    const folderName = elements.folder.selectedOptions[0]?.text ?? "your folder";
    elements.result.textContent = note
      ? `Saved to ${folderName}.`
      : `Saved to ${folderName}. It waits for a note before it is sent.`;
  } catch (error) {
    showProblem(error.message);
    elements.save.disabled = false;
  }
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
  const stored = await readConnection(appUrl);
  const connection = stored && (await showFolders(stored)) ? stored : null;
  if (!connection) {
    elements.connectOffer.hidden = false;
    elements.connect.addEventListener("click", async () => {
      await chrome.tabs.create({ url: await startConnecting(appUrl), index: tab.index + 1 });
    });
  }
  elements.save.disabled = false;
  elements.note.focus();
  elements.form.addEventListener("submit", async (event) => {
    event.preventDefault();
    elements.save.disabled = true;
    elements.result.textContent = "";
    if (connection) {
      await saveInPlace(connection, { url: pageUrl });
      return;
    }
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

/**
 * The end of "Connect": the app's Connect page links here with the new token
 * and the `state` the popup chose in the fragment (never sent to any
 * server). Any site can link to this page, so the token is taken only when
 * the state is the one this extension is waiting for, and only once.
 */
const status = document.getElementById("status");
const answer = new URLSearchParams(location.hash.slice(1));
history.replaceState(null, "", location.pathname);

const { pendingConnection } = await chrome.storage.local.get("pendingConnection");
const token = answer.get("token");
if (pendingConnection && token && answer.get("state") === pendingConnection.state) {
  await chrome.storage.local.set({ connection: { appUrl: pendingConnection.appUrl, token } });
  await chrome.storage.local.remove("pendingConnection");
  status.textContent = `Connected to ${pendingConnection.appUrl}. Click the Thoughtfully button to save pages in one click. You can close this tab.`;
} else {
  status.textContent =
    "This link is not the answer to a connection started from this extension, so nothing was changed.";
}

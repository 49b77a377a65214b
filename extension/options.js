import { normalizeAppUrl, readAppUrl } from "./shared.js";

const form = document.getElementById("options-form");
const input = document.getElementById("app-url");
const status = document.getElementById("status");

input.value = await readAppUrl();

form.addEventListener("submit", async (event) => {
  event.preventDefault();
  const appUrl = normalizeAppUrl(input.value);
  if (!appUrl) {
    status.textContent = "Please enter an address starting with http:// or https://";
    return;
  }
  await chrome.storage.sync.set({ appUrl });
  input.value = appUrl;
  status.textContent = "Saved.";
});

// The flags dashboard: connects with a pasted key, then routes between the list, the editor and
// a flag's experiment (`#/`, `#/new`, `#/flags/{key}`, `#/flags/{key}/experiment?metric=…`).
// Only flag keys and experiment settings ever appear in the URL, never the API key.

import { api, forgetKey, storedKey, storeKey } from "./api.js";
import { $, clearFieldErrors, show } from "./dom.js";
import { ExperimentView } from "./experiment-view.js";
import { FlagEditor } from "./flag-editor.js";
import { FlagList } from "./flag-list.js";
import { LeaveGuard } from "./leave-guard.js";
import { createPages, markNav, PAGE_VIEWS } from "./pages.js";

const views = ["#connect-view", "#list-view", "#editor-view", "#experiment-view", ...PAGE_VIEWS];

function showView(selector) {
  for (const view of views) show($(view), view === selector);
}

function status(message) {
  const box = $("#status");
  box.textContent = message;
  show(box, message !== "");
}

function alertMessage(message) {
  const box = $("#alert");
  box.textContent = message;
  show(box, message !== "");
}

/** Errors that are about the key go back to the connect form; the rest to the alert banner. */
function handleError(error) {
  if (error.isAuth) {
    forgetKey();
    showConnect(`The server refused the API key (${error.code}): ${error.message}`);
    return;
  }
  const prefix = error.code === "restricted_api_key" ? "This key may not do that" : "Something went wrong";
  alertMessage(`${prefix}: ${error.message}`);
}

const list = new FlagList({ onError: handleError, onStatus: status });
const editor = new FlagEditor({ onError: handleError, onStatus: status, navigate });
const experiment = new ExperimentView({ onError: handleError, navigate });
const pages = createPages({ onError: handleError, onStatus: status });
const guard = new LeaveGuard({
  hasUnsavedChanges: () => !$("#editor-view").hidden && editor.hasUnsavedChanges(),
  discard: () => editor.discardChanges(),
});

// What the current key may do, asked once per key: a key without flags:write gets no switch or
// button that would fail.
let access = { key: undefined, writable: true };

async function keyMayWrite() {
  const key = storedKey();
  if (access.key !== key) {
    const { scopes } = await api.access();
    access = { key, writable: scopes.includes("full_access") || scopes.includes("flags:write") };
  }
  return access.writable;
}

// A navigation the page makes itself keeps the message it just set ("Created flag …").
let keepStatus = false;

function navigate(hash) {
  if (location.hash === hash) void route();
  else {
    keepStatus = true;
    location.hash = hash;
  }
}

function showSession(connected) {
  show($("#session"), connected);
  show($("#main-nav"), connected);
  const key = storedKey();
  // Enough of the key to tell two apart, never enough to use it.
  $("#session-key-hint").textContent = key.length > 8 ? `…${key.slice(-4)}` : "…";
}

function showConnect(error) {
  showSession(false);
  showView("#connect-view");
  const form = $("#key-form");
  clearFieldErrors(form);
  const input = $("#api-key");
  input.value = "";
  const slot = $("#api-key-error");
  if (error) {
    slot.textContent = error;
    show(slot, true);
    input.setAttribute("aria-invalid", "true");
  } else show(slot, false);
  input.focus();
}

function safeDecode(text) {
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}

async function route() {
  alertMessage("");
  if (!storedKey()) {
    showConnect();
    return;
  }
  showSession(true);
  const [hash, search = ""] = (location.hash.replace(/^#/, "") || "/").split("?");
  markNav(hash);
  // Emails, suppressions, webhooks, experiments (pages.js): each checks its own scope.
  const page = pages.pageFor(hash);
  if (page) {
    show($("#readonly-note"), false);
    showView(page.view);
    await page.open();
    return;
  }
  let writable;
  try {
    writable = await keyMayWrite();
  } catch (error) {
    handleError(error);
    return;
  }
  show($("#readonly-note"), !writable);
  list.setWritable(writable);
  editor.setWritable(writable);
  const experimentPath = /^\/flags\/([^/]+)\/experiment$/.exec(hash);
  if (hash === "/new" && writable) {
    showView("#editor-view");
    await editor.open(undefined);
    $("#editor-title").focus();
  } else if (experimentPath) {
    showView("#experiment-view");
    await experiment.open(safeDecode(experimentPath[1]), new URLSearchParams(search));
    if (storedKey()) $("#experiment-title").focus();
  } else if (hash.startsWith("/flags/")) {
    showView("#editor-view");
    await editor.open(safeDecode(hash.slice("/flags/".length)));
    if (storedKey()) $("#editor-title").focus();
  } else {
    showView("#list-view");
    $("#list-title").focus();
    await list.load();
  }
}

$("#key-form").addEventListener("submit", async (event) => {
  event.preventDefault();
  const input = $("#api-key");
  const key = input.value.trim();
  const slot = $("#api-key-error");
  show(slot, false);
  input.removeAttribute("aria-invalid");
  if (key === "") {
    slot.textContent = "Paste an API key first";
    show(slot, true);
    input.setAttribute("aria-invalid", "true");
    input.focus();
    return;
  }
  const button = $("#connect");
  button.disabled = true;
  try {
    // Check the key before keeping it: one page of flags needs flags:read.
    await api.listFlags({ limit: 1, key });
    storeKey(key);
    input.value = "";
    status("");
    await route();
  } catch (error) {
    const message =
      error.isAuth || error.code === "restricted_api_key"
        ? `The server refused the API key (${error.code}): ${error.message}`
        : error.message;
    slot.textContent = message;
    show(slot, true);
    input.setAttribute("aria-invalid", "true");
    input.focus();
  } finally {
    button.disabled = false;
  }
});

$("#forget-key").addEventListener("click", () => {
  forgetKey();
  status("The key was removed from this tab.");
  showConnect();
});

window.addEventListener("hashchange", (event) => {
  if (guard.intercept(event.oldURL)) return;
  if (!keepStatus) status("");
  keepStatus = false;
  void route();
});

void route();

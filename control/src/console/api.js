// Calls to the control API. Reading needs nothing; acting (a POST) needs the bearer token, asked once in
// a dialog and kept in sessionStorage: it lives as long as the tab, and is asked again if refused (401).
const TOKEN_KEY = "orderflow-control-token";

export function storedToken() {
  return sessionStorage.getItem(TOKEN_KEY);
}

// The page's token button follows these.
const changed = () => document.dispatchEvent(new Event("token-change"));

export function forgetToken() {
  sessionStorage.removeItem(TOKEN_KEY);
  changed();
}

/** Opens the token dialog; resolves with the token entered, or null when cancelled. */
export function askToken() {
  const dialog = document.getElementById("token-dialog");
  const form = document.getElementById("token-form");
  const input = document.getElementById("token-input");
  const cancel = document.getElementById("token-cancel");
  input.value = "";
  return new Promise((resolve) => {
    const done = (token) => {
      form.removeEventListener("submit", onSubmit);
      cancel.removeEventListener("click", onCancel);
      dialog.removeEventListener("cancel", onCancel);
      if (dialog.open) dialog.close();
      if (token) sessionStorage.setItem(TOKEN_KEY, token);
      changed();
      resolve(token);
    };
    const onSubmit = (e) => {
      e.preventDefault();
      const token = input.value.trim();
      if (token) done(token);
    };
    const onCancel = (e) => {
      e.preventDefault();
      done(null);
    };
    form.addEventListener("submit", onSubmit);
    cancel.addEventListener("click", onCancel);
    dialog.addEventListener("cancel", onCancel);
    dialog.showModal();
    input.focus();
  });
}

async function token() {
  return storedToken() ?? (await askToken());
}

/** The API's own words for a failed answer: its problem JSON's title and detail. */
function problemText(status, body) {
  if (body && typeof body === "object") {
    const parts = [body.title, body.detail].filter((p) => typeof p === "string" && p.length > 0);
    if (parts.length > 0) return `${status}: ${parts.join(" — ")}`;
  }
  return `HTTP ${status}`;
}

async function readBody(res) {
  const text = await res.text();
  if (!text) return null;
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

export async function getJson(path) {
  const res = await fetch(path, { headers: { accept: "application/json" } });
  const body = await readBody(res);
  if (!res.ok) throw new Error(problemText(res.status, body));
  return body;
}

/**
 * POSTs with the token. Resolves {ok: true, body} or {ok: false, message}; a refused token is forgotten
 * so the next action asks again.
 */
export async function postJson(path, payload) {
  const t = await token();
  if (!t) return { ok: false, message: "no token given" };
  let res;
  try {
    res = await fetch(path, {
      method: "POST",
      headers: {
        "content-type": "application/json",
        accept: "application/json",
        authorization: `Bearer ${t}`,
      },
      body: JSON.stringify(payload),
    });
  } catch (e) {
    return { ok: false, message: `control service unreachable: ${e.message}` };
  }
  const body = await readBody(res);
  if (res.status === 401) forgetToken();
  if (!res.ok) return { ok: false, status: res.status, message: problemText(res.status, body) };
  return { ok: true, body };
}

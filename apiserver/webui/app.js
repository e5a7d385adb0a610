// joshbot web chat. Everything the model writes is put on the page as
// text (textContent), never parsed as HTML.
"use strict";

const $ = (id) => document.getElementById(id);
const USER_KEY = "joshbot.user";
let csrf = "";
let busy = false;

// conversation returns the browser-side conversation name, minting one the
// first time. "New conversation" replaces it; nothing is deleted.
function conversation() {
  let u = localStorage.getItem(USER_KEY);
  if (!u || !/^[A-Za-z0-9][A-Za-z0-9._@+-]{0,63}$/.test(u)) {
    u = newConversationName();
  }
  return u;
}

function newConversationName() {
  const b = new Uint8Array(12);
  crypto.getRandomValues(b);
  const u = "web-" + Array.from(b, (x) => x.toString(16).padStart(2, "0")).join("");
  localStorage.setItem(USER_KEY, u);
  return u;
}

function setStatus(text) {
  $("status").textContent = text;
}

// addTurn appends a transcript entry and returns it.
function addTurn(role, text) {
  const li = document.createElement("li");
  li.className = role;
  li.textContent = text;
  $("transcript").appendChild(li);
  li.scrollIntoView({ block: "end" });
  return li;
}

// markStopped marks an answer cut short, keeping its text.
function markStopped(li) {
  li.classList.add("stopped");
  const mark = document.createElement("span");
  mark.className = "marker";
  mark.textContent = li.textContent === "" ? "(stopped)" : " (stopped)";
  li.appendChild(mark);
}

async function errorText(resp) {
  try {
    const body = await resp.json();
    if (body && body.error && body.error.message) {
      return body.error.message;
    }
  } catch (_) {
    // not JSON: fall through
  }
  return "HTTP " + resp.status;
}

async function showLogin() {
  csrf = "";
  $("chat").hidden = true;
  $("actions").hidden = true;
  $("login").hidden = false;
  $("key").focus();
}

async function start() {
  const resp = await fetch("/webui/config", { credentials: "same-origin" });
  if (resp.status === 401) {
    return showLogin();
  }
  if (!resp.ok) {
    setStatus(await errorText(resp));
    return;
  }
  csrf = (await resp.json()).csrf;
  $("login").hidden = true;
  $("chat").hidden = false;
  $("actions").hidden = false;
  await loadTranscript();
  $("message").focus();
}

async function loadTranscript() {
  $("transcript").replaceChildren();
  const resp = await fetch("/webui/session?user=" + encodeURIComponent(conversation()), { credentials: "same-origin" });
  if (resp.status === 401) {
    return showLogin();
  }
  if (!resp.ok) {
    setStatus(await errorText(resp));
    return;
  }
  const body = await resp.json();
  for (const m of body.messages) {
    const li = addTurn(m.role, m.content);
    if (m.interrupted) {
      markStopped(li);
    }
  }
}

async function login(ev) {
  ev.preventDefault();
  $("login-error").textContent = "";
  const resp = await fetch("/webui/login", {
    method: "POST",
    credentials: "same-origin",
    headers: { "Content-Type": "application/json" },
    body: JSON.stringify({ key: $("key").value }),
  });
  $("key").value = "";
  if (!resp.ok) {
    $("login-error").textContent = await errorText(resp);
    return;
  }
  await start();
}

async function logout() {
  await fetch("/webui/logout", { method: "POST", credentials: "same-origin", headers: { "X-Joshbot-CSRF": csrf } });
  $("transcript").replaceChildren();
  await showLogin();
}

function newConversation() {
  newConversationName();
  $("transcript").replaceChildren();
  setStatus("New conversation started; the old one is kept.");
  $("message").focus();
}

// readStream reads a chat-completions SSE body. Data frames carry answer
// deltas; ": joshbot.progress {json}" comment lines carry tool progress and
// ": joshbot.waiting {json}" ones say the model has not begun answering.
async function readStream(resp, onDelta, onProgress, onWaiting) {
  const reader = resp.body.getReader();
  const decoder = new TextDecoder();
  let buf = "";
  let finished = false;
  for (;;) {
    const { value, done } = await reader.read();
    if (done) {
      break;
    }
    buf += decoder.decode(value, { stream: true });
    let nl;
    while ((nl = buf.indexOf("\n")) >= 0) {
      const line = buf.slice(0, nl).replace(/\r$/, "");
      buf = buf.slice(nl + 1);
      if (line.startsWith(": joshbot.progress ")) {
        onProgress(JSON.parse(line.slice(": joshbot.progress ".length)));
      } else if (line.startsWith(": joshbot.waiting ")) {
        onWaiting(JSON.parse(line.slice(": joshbot.waiting ".length)));
      } else if (line.startsWith("data: ")) {
        const data = line.slice(6);
        if (data === "[DONE]") {
          finished = true;
          continue;
        }
        const chunk = JSON.parse(data);
        if (chunk.error) {
          throw new Error(chunk.error.message);
        }
        for (const c of chunk.choices || []) {
          if (c.delta && c.delta.content) {
            onDelta(c.delta.content);
          }
        }
      }
    }
  }
  if (!finished) {
    throw new Error("the answer was cut off");
  }
}

async function send(ev) {
  ev.preventDefault();
  const text = $("message").value;
  if (busy || text.trim() === "") {
    return;
  }
  busy = true;
  $("send").disabled = true;
  $("message").value = "";
  addTurn("user", text);
  let answer = null;
  let waiting = false;
  // Stop aborts the request; the server keeps what was shown as an
  // interrupted answer.
  const controller = new AbortController();
  let stopped = false;
  const stop = () => {
    stopped = true;
    controller.abort();
  };
  $("stop").onclick = stop;
  $("stop").hidden = false;
  setStatus("Thinking…");
  try {
    const resp = await fetch("/v1/chat/completions", {
      method: "POST",
      signal: controller.signal,
      credentials: "same-origin",
      headers: { "Content-Type": "application/json", "X-Joshbot-CSRF": csrf },
      body: JSON.stringify({
        model: "joshbot",
        stream: true,
        user: conversation(),
        messages: [{ role: "user", content: text }],
      }),
    });
    if (resp.status === 401) {
      await showLogin();
      return;
    }
    if (!resp.ok) {
      throw new Error(await errorText(resp));
    }
    await readStream(
      resp,
      (delta) => {
        if (waiting) {
          waiting = false;
          setStatus("");
        }
        if (!answer) {
          answer = addTurn("assistant", "");
        }
        answer.textContent += delta;
        answer.scrollIntoView({ block: "end" });
      },
      (p) => {
        addTurn("progress", "⚙ " + p.tool + (p.detail ? ": " + p.detail : ""));
        answer = null; // text after a tool call starts a new bubble
      },
      (w) => {
        waiting = true;
        setStatus("waiting for the model (" + w.seconds + "s)");
      },
    );
    setStatus("");
  } catch (e) {
    if (stopped) {
      // Keep the partial text on the page and say it was cut short.
      markStopped(answer || addTurn("assistant", ""));
      setStatus("");
      return;
    }
    const li = addTurn("assistant failed", "Error: " + e.message);
    li.classList.add("failed");
    setStatus("");
  } finally {
    $("stop").hidden = true;
    $("stop").onclick = null;
    busy = false;
    $("send").disabled = false;
    $("message").focus();
  }
}

document.addEventListener("DOMContentLoaded", () => {
  $("login").addEventListener("submit", login);
  $("composer").addEventListener("submit", send);
  $("new").addEventListener("click", newConversation);
  $("logout").addEventListener("click", logout);
  $("message").addEventListener("keydown", (ev) => {
    if (ev.key === "Enter" && !ev.shiftKey) {
      ev.preventDefault();
      $("composer").requestSubmit();
    }
  });
  start().catch((e) => setStatus("Error: " + e.message));
});

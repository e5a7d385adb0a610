// Drives joshbot's web chat in headless Chromium (Debian's package) through
// playwright-core. The Go test scripts the provider behind the live server:
// first a tool call then a streamed answer, then an answer holding HTML.
//
// Usage: JOSHBOT_URL=http://127.0.0.1:port JOSHBOT_KEY=... node webui_chromium.mjs
// Exits non-zero on the first mismatch.
import { chromium } from "playwright-core";
import assert from "node:assert/strict";

const url = process.env.JOSHBOT_URL;
const key = process.env.JOSHBOT_KEY;
const executablePath = process.env.CHROMIUM || "/usr/bin/chromium";
assert.ok(url && key, "JOSHBOT_URL and JOSHBOT_KEY must be set");

const XSS = '<img src=x onerror="window.__pwned=1">';

const browser = await chromium.launch({
  executablePath,
  headless: true,
  // Chromium fails in a sandboxed container without these; the network
  // ones also keep it from phoning home during the test.
  args: [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
  ],
});

const consoleErrors = [];
const cspViolations = [];
let failed = false;

async function step(name, fn) {
  try {
    await fn();
    console.log("ok   " + name);
  } catch (e) {
    console.error("FAIL " + name + ": " + (e && e.stack ? e.stack : e));
    failed = true;
    throw e;
  }
}

try {
  const context = await browser.newContext();
  const page = await context.newPage();
  page.on("console", (msg) => {
    const text = msg.text();
    if (/Content Security Policy/i.test(text)) cspViolations.push(text);
    if (msg.type() === "error") consoleErrors.push(text);
  });
  page.on("pageerror", (err) => consoleErrors.push("page error: " + err.message));
  const turns = () => page.locator("#transcript li").evaluateAll((lis) => lis.map((li) => [li.className, li.textContent]));

  await step("the page shows the login form", async () => {
    const resp = await page.goto(url + "/");
    assert.equal(resp.status(), 200);
    assert.match(resp.headers()["content-security-policy"], /^default-src 'none'/);
    await page.locator("#login").waitFor({ state: "visible" });
    assert.equal(await page.locator("#chat").isVisible(), false);
  });

  await step("a wrong key is refused", async () => {
    await page.fill("#key", "not-the-key");
    await page.click("#login button[type=submit]");
    await page.locator("#login-error").filter({ hasText: "api.api_keys" }).waitFor();
    assert.equal((await context.cookies()).length, 0);
  });
  // That 401 is logged by Chromium as a failed resource load; it is the
  // expected answer, not a page error.
  consoleErrors.length = 0;

  await step("login with the API key sets a strict HttpOnly cookie", async () => {
    await page.fill("#key", key);
    await page.click("#login button[type=submit]");
    await page.locator("#chat").waitFor({ state: "visible" });
    const cookies = await context.cookies();
    assert.equal(cookies.length, 1);
    assert.equal(cookies[0].name, "joshbot_session");
    assert.equal(cookies[0].httpOnly, true);
    assert.equal(cookies[0].sameSite, "Strict");
    assert.ok(!cookies[0].value.includes(key));
    assert.equal(await page.evaluate(() => document.cookie), "", "scripts cannot read the session cookie");
  });

  await step("a message gets a streamed reply, with tool progress", async () => {
    await page.fill("#message", "What do my notes say?");
    await page.click("#send");
    await page.locator("#transcript li.assistant").filter({ hasText: "Your notes say 42." }).waitFor();
    const t = await turns();
    assert.deepEqual(t, [
      ["user", "What do my notes say?"],
      ["progress", "⚙ read_file: notes.md"],
      ["assistant", "Your notes say 42."],
    ]);
  });

  await step("model output containing HTML is shown as text", async () => {
    await page.fill("#message", "Show me some HTML.");
    await page.click("#send");
    const li = page.locator("#transcript li.assistant").filter({ hasText: "onerror" });
    await li.waitFor();
    assert.equal(await li.textContent(), "Here it is: " + XSS);
    assert.equal(await page.locator("#transcript img").count(), 0, "no element was created from model output");
    await page.waitForTimeout(200);
    assert.equal(await page.evaluate(() => window.__pwned), undefined);
    if (process.env.SCREENSHOT) {
      // For a person checking how the page looks: SCREENSHOT=/tmp/chat.png.
      await page.screenshot({ path: process.env.SCREENSHOT, fullPage: true });
    }
  });

  await step("the transcript survives a reload", async () => {
    await page.reload();
    await page.locator("#transcript li").nth(3).waitFor();
    assert.deepEqual(await turns(), [
      ["user", "What do my notes say?"],
      ["assistant", "Your notes say 42."],
      ["user", "Show me some HTML."],
      ["assistant", "Here it is: " + XSS],
    ]);
    assert.equal(await page.locator("#transcript img").count(), 0);
  });

  await step("no CSP violation and no console error so far", async () => {
    assert.deepEqual(cspViolations, []);
    assert.deepEqual(consoleErrors, []);
  });

  await step("the CSP really blocks inline script (the check above can fail)", async () => {
    await page.evaluate(() => {
      const s = document.createElement("script");
      s.textContent = "window.__inline = 1";
      document.body.appendChild(s);
    });
    await page.waitForTimeout(200);
    assert.equal(await page.evaluate(() => window.__inline), undefined, "inline script ran");
    assert.ok(cspViolations.length > 0, "the blocked inline script produced no CSP report in the console");
  });

  await step("new conversation starts empty and deletes nothing", async () => {
    const before = await page.evaluate(() => localStorage.getItem("joshbot.user"));
    await page.click("#new");
    assert.deepEqual(await turns(), []);
    const after = await page.evaluate(() => localStorage.getItem("joshbot.user"));
    assert.notEqual(after, before);
    await page.reload();
    await page.locator("#chat").waitFor({ state: "visible" });
    await page.waitForTimeout(300);
    assert.deepEqual(await turns(), []);
    // The old conversation is still there for whoever names it.
    const old = await page.evaluate(async (u) => (await (await fetch("/webui/session?user=" + u)).json()).messages.length, before);
    assert.equal(old, 4);
  });

  await step("log out returns to the login form and kills the cookie", async () => {
    await page.click("#logout");
    await page.locator("#login").waitFor({ state: "visible" });
    const status = await page.evaluate(async () => (await fetch("/webui/config")).status);
    assert.equal(status, 401);
  });
} catch (e) {
  failed = true;
} finally {
  await browser.close();
}
if (failed) {
  process.exit(1);
}
console.log("all web UI checks passed");

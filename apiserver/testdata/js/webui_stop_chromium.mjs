// Drives joshbot's web chat in headless Chromium through playwright-core
// for a slow model and a stopped answer. The Go test scripts the provider:
// first an answer held back for a few seconds before its first chunk, then
// an answer that sends two chunks and hangs.
//
// Usage: JOSHBOT_URL=http://127.0.0.1:port JOSHBOT_KEY=... node webui_stop_chromium.mjs
// Prints "conversation=NAME" for the Go test to inspect the session, and
// exits non-zero on the first mismatch.
import { chromium } from "playwright-core";
import assert from "node:assert/strict";

const url = process.env.JOSHBOT_URL;
const key = process.env.JOSHBOT_KEY;
const executablePath = process.env.CHROMIUM || "/usr/bin/chromium";
assert.ok(url && key, "JOSHBOT_URL and JOSHBOT_KEY must be set");

const browser = await chromium.launch({
  executablePath,
  headless: true,
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

const pageErrors = [];
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
  page.on("pageerror", (err) => pageErrors.push("page error: " + err.message));
  const turns = () => page.locator("#transcript li").evaluateAll((lis) => lis.map((li) => [li.className, li.textContent]));
  const status = () => page.locator("#status").textContent();

  await step("login", async () => {
    await page.goto(url + "/");
    await page.fill("#key", key);
    await page.click("#login button[type=submit]");
    await page.locator("#chat").waitFor({ state: "visible" });
    console.log("conversation=" + (await page.evaluate(() => localStorage.getItem("joshbot.user"))));
  });

  await step("a slow model shows the wait, and the first words clear it", async () => {
    assert.equal(await page.locator("#stop").isVisible(), false, "Stop shows only during an answer");
    await page.fill("#message", "Are you there?");
    await page.click("#send");
    await page.locator("#status").filter({ hasText: /^waiting for the model \(\d+s\)$/ }).waitFor({ timeout: 15000 });
    assert.equal(await page.locator("#stop").isVisible(), true, "Stop shows during an answer");
    assert.equal(await page.locator("#transcript li.assistant").count(), 0, "no answer yet while waiting");
    await page.locator("#transcript li.assistant").filter({ hasText: "Here after a wait." }).waitFor({ timeout: 15000 });
    await page.locator("#stop").waitFor({ state: "hidden" });
    assert.doesNotMatch(await status(), /waiting/);
  });

  await step("Stop keeps the partial answer and marks it (stopped)", async () => {
    await page.fill("#message", "Tell me a long story.");
    await page.click("#send");
    const li = page.locator("#transcript li.assistant").nth(1);
    await li.filter({ hasText: "Once upon" }).waitFor({ timeout: 15000 });
    await page.click("#stop");
    await li.filter({ hasText: "(stopped)" }).waitFor();
    const text = await li.textContent();
    assert.match(text, /^Once upon.* \(stopped\)$/);
    assert.ok(!text.includes("happily"), "only the part shown before Stop: " + text);
    assert.equal(await page.locator("#transcript li.failed").count(), 0, "a stop is not an error");
    await page.locator("#stop").waitFor({ state: "hidden" });
    assert.equal(await page.locator("#send").isDisabled(), false);
    assert.deepEqual((await turns()).map((t) => t[0]), ["user", "assistant", "user", "assistant stopped"]);
    assert.equal(await status(), "");
  });

  await step("after a reload the stopped answer is still marked (stopped)", async () => {
    await page.reload();
    await page.locator("#transcript li").nth(3).waitFor();
    const t = await turns();
    assert.deepEqual(t.map((x) => x[0]), ["user", "assistant", "user", "assistant stopped"]);
    assert.match(t[3][1], /^Once upon.* \(stopped\)$/);
  });

  await step("no page error", async () => {
    assert.deepEqual(pageErrors, []);
  });
} catch (e) {
  failed = true;
} finally {
  await browser.close();
}
if (failed) {
  process.exit(1);
}
console.log("all web UI stop checks passed");

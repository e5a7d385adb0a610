// Drives a live `joshbot serve` with the official openai package. The Go
// test scripts the provider behind it in this order: a plain answer, a
// streamed answer, a streamed answer with usage, twice a tool call followed
// by an answer, and then failures for everything.
//
// Usage: JOSHBOT_URL=http://127.0.0.1:port JOSHBOT_KEY=... node openai_client.mjs
// Exits non-zero on the first mismatch.
import OpenAI from "openai";
import assert from "node:assert/strict";

const baseURL = process.env.JOSHBOT_URL + "/v1";
const apiKey = process.env.JOSHBOT_KEY;
assert.ok(process.env.JOSHBOT_URL && apiKey, "JOSHBOT_URL and JOSHBOT_KEY must be set");

// Keep the raw bytes of every response the client parsed, so a check can
// look at what was on the wire.
const raw = [];
const recordingFetch = async (url, init) => {
  const resp = await fetch(url, init);
  raw.push(resp.clone().text());
  return resp;
};

const client = new OpenAI({ baseURL, apiKey, maxRetries: 0, fetch: recordingFetch });
const user = "node-client";

async function step(name, fn) {
  try {
    await fn();
    console.log("ok   " + name);
  } catch (e) {
    console.error("FAIL " + name + ": " + (e && e.stack ? e.stack : e));
    process.exit(1);
  }
}

await step("models lists joshbot", async () => {
  const models = await client.models.list();
  assert.deepEqual(models.data.map((m) => m.id), ["joshbot"]);
});

await step("plain completion", async () => {
  const c = await client.chat.completions.create({
    model: "gpt-4o",
    user,
    messages: [
      { role: "system", content: "You are someone else." },
      { role: "user", content: "Say hello." },
    ],
  });
  assert.equal(c.object, "chat.completion");
  assert.equal(c.model, "joshbot");
  assert.equal(c.choices.length, 1);
  assert.equal(c.choices[0].message.role, "assistant");
  assert.equal(c.choices[0].message.content, "Hello from the scripted model.");
  assert.equal(c.choices[0].finish_reason, "stop");
  assert.equal(c.usage.total_tokens, 15);
});

await step("streamed completion assembled from deltas", async () => {
  const stream = await client.chat.completions.create({
    model: "joshbot",
    user,
    stream: true,
    messages: [{ role: "user", content: "Stream something." }],
  });
  let text = "";
  let roles = 0;
  let finishes = [];
  const ids = new Set();
  for await (const chunk of stream) {
    ids.add(chunk.id);
    assert.equal(chunk.object, "chat.completion.chunk");
    for (const ch of chunk.choices) {
      if (ch.delta.role) roles++;
      text += ch.delta.content ?? "";
      finishes.push(ch.finish_reason);
    }
  }
  assert.equal(text, "A streamed answer, in several pieces.");
  assert.equal(ids.size, 1, "one id for the whole stream");
  assert.equal(roles, 1, "only the first delta carries the role");
  assert.equal(finishes.at(-1), "stop");
  assert.ok(finishes.slice(0, -1).every((f) => f === null), "finish_reason is null until the last chunk");
});

await step("usage in the stream", async () => {
  const stream = await client.chat.completions.create({
    model: "joshbot",
    user,
    stream: true,
    stream_options: { include_usage: true },
    messages: [{ role: "user", content: "Count tokens." }],
  });
  let text = "";
  let usage = null;
  let usageChunks = 0;
  for await (const chunk of stream) {
    if (chunk.usage) {
      usage = chunk.usage;
      usageChunks++;
      assert.deepEqual(chunk.choices, [], "the usage chunk has empty choices");
    }
    for (const ch of chunk.choices) text += ch.delta.content ?? "";
  }
  assert.equal(text, "Counted.");
  assert.equal(usageChunks, 1);
  assert.deepEqual(usage, { prompt_tokens: 11, completion_tokens: 2, total_tokens: 13 });
});

await step("tool progress lines do not disturb the client", async () => {
  const before = raw.length;
  const stream = await client.chat.completions.create({
    model: "joshbot",
    user,
    stream: true,
    messages: [{ role: "user", content: "Read my notes." }],
  });
  let text = "";
  for await (const chunk of stream) {
    assert.ok(Array.isArray(chunk.choices), "every item the client yields is a completion chunk");
    for (const ch of chunk.choices) text += ch.delta.content ?? "";
  }
  assert.equal(text, "Your notes say 42.");
  const wire = await raw[before];
  assert.match(wire, /^: joshbot\.progress \{"tool":"read_file","detail":"notes\.md"\}$/m, "the stream carried a progress line");
});

await step("the stream helper's accumulator also parses it", async () => {
  // chat.completions.stream() assembles the message itself; it must not
  // choke on the extension either.
  const runner = client.chat.completions.stream({
    model: "joshbot",
    user,
    messages: [{ role: "user", content: "Read my notes again." }],
  });
  const final = await runner.finalChatCompletion();
  assert.equal(final.choices[0].message.content, "Your notes say 42.");
  assert.equal(final.choices[0].finish_reason, "stop");
});

await step("401 with a wrong key", async () => {
  const bad = new OpenAI({ baseURL, apiKey: "sk-wrong", maxRetries: 0 });
  await assert.rejects(
    bad.chat.completions.create({ model: "joshbot", messages: [{ role: "user", content: "hi" }] }),
    (e) => {
      assert.ok(e instanceof OpenAI.AuthenticationError, "an AuthenticationError, got " + e);
      assert.equal(e.status, 401);
      assert.ok(!String(e.message).includes("sk-wrong"), "the key is not echoed");
      return true;
    },
  );
});

await step("502 when the provider fails", async () => {
  await assert.rejects(
    client.chat.completions.create({ model: "joshbot", user, messages: [{ role: "user", content: "hi" }] }),
    (e) => {
      assert.ok(e instanceof OpenAI.APIError, "an APIError, got " + e);
      assert.equal(e.status, 502);
      assert.match(e.message, /custom/);
      assert.ok(!e.message.includes("sk-leak"), "upstream text is not passed on");
      return true;
    },
  );
});

await step("502 for a streamed request when the provider fails first", async () => {
  await assert.rejects(
    client.chat.completions.create({ model: "joshbot", user, stream: true, messages: [{ role: "user", content: "hi" }] }),
    (e) => {
      assert.ok(e instanceof OpenAI.APIError, "an APIError, got " + e);
      assert.equal(e.status, 502);
      return true;
    },
  );
});

await step("malformed body is a 400 with an error object", async () => {
  const resp = await fetch(baseURL + "/chat/completions", {
    method: "POST",
    headers: { Authorization: "Bearer " + apiKey, "Content-Type": "application/json" },
    body: '{"messages": [',
  });
  assert.equal(resp.status, 400);
  const body = await resp.json();
  assert.equal(typeof body.error.message, "string");
});

await step("embeddings and transcriptions answer 501 naming the config key", async () => {
  await assert.rejects(client.embeddings.create({ model: "x", input: "hello" }), (e) => {
    assert.equal(e.status, 501);
    assert.match(e.message, /embeddings\.provider/);
    return true;
  });
  const file = new File([new Uint8Array([0x66, 0x4c, 0x61, 0x43, 0, 0, 0, 0])], "a.flac", { type: "audio/flac" });
  await assert.rejects(client.audio.transcriptions.create({ model: "whisper-1", file }), (e) => {
    assert.equal(e.status, 501);
    assert.match(e.message, /stt\.provider/);
    return true;
  });
});

console.log("all openai client checks passed");

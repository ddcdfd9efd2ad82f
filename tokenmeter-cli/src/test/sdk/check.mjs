// Drives a running tokenmeter simulator with the official OpenAI Node SDK and prints what the SDK
// made of each answer as one JSON object on stdout; SdkCompatIT asserts on it. Any exception the
// SDK throws where it should not is reported, not swallowed: a wire-format slip fails the test.
// Usage: node check.mjs BASE_URL MODEL [all|faults|plain]   (faults: only the chat and chatStream
// steps; plain: a stream that does not ask for usage, and one the client aborts after its first chunk)
import OpenAI from "openai";

const [baseURL, model, mode = "all"] = process.argv.slice(2);
const all = mode === "all";
const plain = mode === "plain";
const client = new OpenAI({ baseURL: baseURL + "/v1", apiKey: "sk-test", maxRetries: 0, timeout: 20000 });
const messages = [{ role: "user", content: "Say something long." }];
const out = {};

async function step(name, fn) {
  try {
    out[name] = await fn();
  } catch (e) {
    out[name] = { threw: e.constructor.name, status: e.status ?? null, message: String(e.message) };
  }
}

if (all) await step("models", async () => {
  const ids = [];
  for await (const m of client.models.list()) ids.push(m.id);
  return { ids };
});

if (plain) await step("plainStream", async () => {
  const stream = await client.chat.completions.create({ model, messages, max_tokens: 12, stream: true });
  let contentChunks = 0, chunks = 0, finish = null, usageSeen = false, emptyChoices = 0;
  for await (const c of stream) {
    chunks++;
    if (c.usage) usageSeen = true;
    if (c.choices.length === 0) emptyChoices++;
    for (const ch of c.choices) {
      if (ch.delta?.content) contentChunks++;
      if (ch.finish_reason) finish = ch.finish_reason;
    }
  }
  return { chunks, contentChunks, finish, usageSeen, emptyChoices };
});

if (plain) await step("abort", async () => {
  const controller = new AbortController();
  const stream = await client.chat.completions.create(
    { model, messages, max_tokens: 200, stream: true }, { signal: controller.signal });
  let contentChunks = 0;
  for await (const c of stream) {
    if (c.choices[0]?.delta?.content) contentChunks++;
    if (contentChunks === 2) controller.abort();
  }
  return { contentChunks, threw: null };
});

if (!plain) await step("chat", async () => {
  const r = await client.chat.completions.create({ model, messages, max_tokens: 12 });
  return {
    object: r.object, finish: r.choices[0].finish_reason, role: r.choices[0].message.role,
    chars: r.choices[0].message.content.length, usage: r.usage,
  };
});

if (!plain) await step("chatStream", async () => {
  const stream = await client.chat.completions.create({
    model, messages, max_tokens: 12, stream: true, stream_options: { include_usage: true },
  });
  let contentChunks = 0, text = "", finish = null, usage = null, ids = new Set(), objects = new Set();
  for await (const c of stream) {
    ids.add(c.id);
    objects.add(c.object);
    if (c.usage) usage = c.usage;
    for (const ch of c.choices) {
      if (ch.delta?.content) { contentChunks++; text += ch.delta.content; }
      if (ch.finish_reason) finish = ch.finish_reason;
    }
  }
  return { contentChunks, chars: text.length, finish, usage, ids: ids.size, objects: [...objects] };
});

// The SDK's accumulating helper checks the chunk sequence much more strictly than a loop does.
if (all) await step("chatStreamHelper", async () => {
  const runner = client.chat.completions.stream({
    model, messages, max_tokens: 8, stream_options: { include_usage: true },
  });
  const done = await runner.finalChatCompletion();
  return { finish: done.choices[0].finish_reason, chars: done.choices[0].message.content.length, usage: done.usage };
});

if (all) await step("completions", async () => {
  const r = await client.completions.create({ model, prompt: "Once upon a time", max_tokens: 10 });
  return { object: r.object, finish: r.choices[0].finish_reason, chars: r.choices[0].text.length, usage: r.usage };
});

if (all) await step("completionsStream", async () => {
  const stream = await client.completions.create({
    model, prompt: "Once upon a time", max_tokens: 10, stream: true, stream_options: { include_usage: true },
  });
  let textChunks = 0, finish = null, usage = null;
  for await (const c of stream) {
    if (c.usage) usage = c.usage;
    for (const ch of c.choices) {
      if (ch.text) textChunks++;
      if (ch.finish_reason) finish = ch.finish_reason;
    }
  }
  return { textChunks, finish, usage };
});

if (all) await step("tooLong", async () => {
  await client.chat.completions.create({ model, messages, max_tokens: 10000000 });
  return { threw: null };
});

console.log(JSON.stringify(out));

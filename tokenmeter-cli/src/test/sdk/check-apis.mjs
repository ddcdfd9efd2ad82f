// Drives a running tokenmeter simulator with the official SDKs of the other APIs it serves
// (@anthropic-ai/sdk, openai's Responses API, @google/genai, ollama; versions pinned in
// package-lock.json) and prints what each SDK made of the answers as one JSON object on stdout;
// ApiSdkCompatIT asserts on it. An exception an SDK throws where it should not is reported, not
// swallowed. Usage: node check-apis.mjs BASE_URL MODEL [all|faults]
import Anthropic from "@anthropic-ai/sdk";
import OpenAI from "openai";
import { GoogleGenAI } from "@google/genai";
import { Ollama } from "ollama";

const [base, model, mode = "all"] = process.argv.slice(2);
const all = mode === "all";
const prompt = "Say something long.";
const out = {};

async function step(name, fn) {
  try {
    out[name] = await fn();
  } catch (e) {
    out[name] = { threw: e.constructor.name, status: e.status ?? null, message: String(e.message) };
  }
}

const anthropic = new Anthropic({ baseURL: base, apiKey: "sk-ant-test", maxRetries: 0, timeout: 20000 });
await step("anthropicStream", async () => {
  const stream = anthropic.messages.stream({
    model, max_tokens: 12, messages: [{ role: "user", content: prompt }], ignore_eos: true,
  });
  let deltas = 0;
  stream.on("text", () => deltas++);
  const m = await stream.finalMessage();
  return { deltas, stop: m.stop_reason, role: m.role, chars: m.content[0].text.length, usage: m.usage };
});
if (all) await step("anthropic", async () => {
  const m = await anthropic.messages.create({ model, max_tokens: 7, messages: [{ role: "user", content: prompt }], ignore_eos: true });
  return { stop: m.stop_reason, chars: m.content[0].text.length, usage: m.usage };
});

const openai = new OpenAI({ baseURL: base + "/v1", apiKey: "sk-test", maxRetries: 0, timeout: 20000 });
await step("responsesStream", async () => {
  const stream = openai.responses.stream({ model, input: prompt, max_output_tokens: 12, ignore_eos: true });
  let deltas = 0, last = null;
  stream.on("response.output_text.delta", () => deltas++);
  stream.on("event", (e) => { last = e; });
  const r = await stream.finalResponse(); // the SDK's snapshot: it takes the final object from response.completed only
  return { deltas, last: last.type, status: last.response.status, reason: last.response.incomplete_details?.reason ?? null,
    chars: r.output[0].content[0].text.length, usage: last.response.usage };
});
if (all) await step("responses", async () => {
  const r = await openai.responses.create({ model, input: prompt, max_output_tokens: 200 });
  return { status: r.status, chars: r.output_text.length, usage: r.usage };
});

const genai = new GoogleGenAI({ apiKey: "g-test", httpOptions: { baseUrl: base } });
await step("geminiStream", async () => {
  const stream = await genai.models.generateContentStream({ model, contents: prompt, config: { maxOutputTokens: 12 } });
  let chunks = 0, chars = 0, finish = null, usage = null;
  for await (const c of stream) {
    chunks++;
    chars += (c.text ?? "").length;
    finish = c.candidates?.[0]?.finishReason ?? finish;
    usage = c.usageMetadata ?? usage;
  }
  return { chunks, chars, finish, usage };
});

const ollama = new Ollama({ host: base });
await step("ollamaChat", async () => {
  const stream = await ollama.chat({
    model, messages: [{ role: "user", content: prompt }], stream: true, options: { num_predict: 12 }, ignore_eos: true,
  });
  let parts = 0, chars = 0, last = null;
  for await (const p of stream) {
    if (p.message.content) parts++;
    chars += p.message.content.length;
    last = p;
  }
  return { parts, chars, done: last.done, reason: last.done_reason, eval: last.eval_count, prompt: last.prompt_eval_count };
});
if (all) await step("ollamaGenerate", async () => {
  const r = await ollama.generate({ model, prompt, stream: false, options: { num_predict: 5 }, ignore_eos: true });
  return { chars: r.response.length, done: r.done, reason: r.done_reason, eval: r.eval_count };
});

console.log(JSON.stringify(out));

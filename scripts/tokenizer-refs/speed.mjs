// Speed of the reference implementations on one text: node speed.mjs LLAMA3_TOKENIZER_JSON TEXT_FILE
// (docs/TOKENIZERS.md compares it with TokenizerBenchmark on the same 64 KiB of prose).
import { readFileSync } from "node:fs";
import { get_encoding } from "tiktoken";
import { Tokenizer } from "tokenizers";
const text = readFileSync(process.argv[3], "utf8");
const enc = get_encoding("o200k_base");
const tok = Tokenizer.fromFile(process.argv[2]);
for (const [name, f] of [["tiktoken o200k_base", async () => enc.encode_ordinary(text).length],
                         ["tokenizers llama3", async () => (await tok.encode(text, null, {addSpecialTokens:false})).getIds().length]]) {
  for (let i = 0; i < 20; i++) await f();
  const n = 50; const t0 = process.hrtime.bigint(); let c = 0;
  for (let i = 0; i < n; i++) c = await f();
  const us = Number(process.hrtime.bigint() - t0) / 1e3 / n;
  console.log(`${name}: ${c} tokens, ${us.toFixed(0)} us/op, ${(Buffer.byteLength(text)/us).toFixed(1)} MB/s`);
}

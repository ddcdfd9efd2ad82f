// Writes reference token ids for src/test/resources/tokenizer/corpus.json, produced by the
// original implementations: OpenAI's tiktoken (Rust, compiled to WASM: npm "tiktoken") for the
// OpenAI encodings, Hugging Face tokenizers (Rust, Node binding: npm "tokenizers") for
// tokenizer.json files. Usage (see src/test/resources/tokenizer/README.md):
//   node generate.mjs CORPUS_JSON OUT_DIR [name=path/to/tokenizer.json ...]
import { readFileSync, writeFileSync } from "node:fs";
import { createHash } from "node:crypto";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { get_encoding } from "tiktoken";
import { Tokenizer } from "tokenizers";

const here = dirname(fileURLToPath(import.meta.url));
const version = (pkg) =>
  JSON.parse(readFileSync(join(here, "node_modules", pkg, "package.json"), "utf8")).version;
const [corpusPath, outDir, ...hfArgs] = process.argv.slice(2);
const corpus = JSON.parse(readFileSync(corpusPath, "utf8")).cases;
const BIG_BYTES = 1 << 20;

// The 1 MiB input: every case joined with "\n", repeated until its UTF-8 form (lone surrogates
// as U+FFFD, 3 bytes) reaches 1 MiB. The Java test rebuilds it from `big.repeat`.
const blob = corpus.map((c) => c.text).join("\n");
const blobBytes = new TextEncoder().encode(blob).length;
const repeat = Math.ceil(BIG_BYTES / blobBytes);
const big = blob.repeat(repeat);

function summary(ids) {
  const list = Array.from(ids);
  return {
    repeat,
    count: list.length,
    sha256: createHash("sha256").update(list.join(",")).digest("hex"),
    head: list.slice(0, 32),
    tail: list.slice(-32),
  };
}

function write(name, implementation, encode) {
  const cases = {};
  for (const c of corpus) cases[c.name] = Array.from(encode(c.text));
  const out = { tokenizer: name, implementation, cases, big: summary(encode(big)) };
  writeFileSync(`${outDir}/${name}.ids.json`, JSON.stringify(out) + "\n");
  console.log(`${name}: ${corpus.length} cases, 1 MiB input ${out.big.count} tokens`);
}

const tiktokenVersion = version("tiktoken");
for (const name of ["o200k_base", "cl100k_base", "p50k_base", "r50k_base"]) {
  const enc = get_encoding(name);
  write(name, `tiktoken ${tiktokenVersion} encode_ordinary`, (t) => enc.encode_ordinary(t));
  enc.free();
}

const hfVersion = version("tokenizers");
for (const arg of hfArgs) {
  const [name, path] = arg.split("=");
  const tok = Tokenizer.fromFile(path);
  // encode() is async in the Node binding; collect every result first.
  const results = {};
  for (const c of corpus) results[c.text] = (await tok.encode(c.text, null, { addSpecialTokens: false })).getIds();
  const bigIds = (await tok.encode(big, null, { addSpecialTokens: false })).getIds();
  const sha = createHash("sha256").update(readFileSync(path)).digest("hex");
  write(name, `tokenizers ${hfVersion} (node) encode addSpecialTokens=false; tokenizer.json sha256 ${sha}`,
    (t) => (t === big ? bigIds : results[t]));
}

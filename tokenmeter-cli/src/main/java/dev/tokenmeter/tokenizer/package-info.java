/**
 * Exact tokenizers: {@link dev.tokenmeter.tokenizer.Tokenizer} with OpenAI's encodings (jtokkit)
 * and Hugging Face {@code tokenizer.json} files (the reference Rust implementation through DJL)
 * behind it, and {@link dev.tokenmeter.tokenizer.TokenizerResolver}, which turns {@code
 * --tokenizer} specs and model names into one. Depends on nothing else in tokenmeter.
 *
 * <p>May use: nothing else in tokenmeter.
 */
package dev.tokenmeter.tokenizer;

package dev.tokenmeter.tokenizer;

import java.nio.file.Path;

/**
 * A model's tokenizer: text to token ids, exactly as the model counts them. Two kinds stand behind
 * it: OpenAI's BPE encodings ({@link #openAi}) and Hugging Face {@code tokenizer.json} files
 * ({@link #huggingFace}); {@link TokenizerResolver} picks one from a command-line spec.
 *
 * <p>Contract shared by every implementation (and pinned by one contract test over all of them
 * against ids from the original implementations):
 *
 * <ul>
 *   <li>No special tokens are added (no BOS/EOS, no chat template): the ids of the raw text.
 *   <li>Text that spells a special token ({@code <|endoftext|>}) is handled as the original does:
 *       as ordinary text for OpenAI encodings (tiktoken's {@code encode_ordinary}), as the special
 *       token for Hugging Face tokenizers (their added tokens are always matched).
 *   <li>A lone UTF-16 surrogate is read as U+FFFD, as both originals do when handed one.
 *   <li>Implementations are immutable and thread-safe.
 * </ul>
 *
 * <pre>{@code
 * Tokenizer t = Tokenizer.openAi("o200k_base");
 * int n = t.count("Hello, world!"); // 4
 * }</pre>
 */
public interface Tokenizer {

  /** A short stable name for reports: {@code o200k_base}, {@code hf:meta-llama/Llama-3.1-8B}. */
  String name();

  /** The token ids of {@code text}. */
  int[] encode(CharSequence text);

  /** {@code encode(text).length}, possibly faster. */
  default int count(CharSequence text) {
    return encode(text).length;
  }

  /**
   * The text of {@code ids}; bytes that do not form whole UTF-8 characters become U+FFFD, so a
   * single id that is half of a character decodes to {@code "\uFFFD"}.
   */
  String decode(int[] ids);

  /** The text of one token, as {@link #decode} gives it: {@code piece(9906)} is {@code "Hello"}. */
  default String piece(int id) {
    return decode(new int[] {id});
  }

  /**
   * One of OpenAI's encodings through jtokkit.
   *
   * @param encoding {@code o200k_base}, {@code cl100k_base}, {@code p50k_base} or {@code
   *     r50k_base}
   * @throws TokenizerException for any other name
   */
  static Tokenizer openAi(String encoding) {
    return TiktokenTokenizer.of(encoding);
  }

  /**
   * A Hugging Face tokenizer from a {@code tokenizer.json} file or a folder holding one, run by the
   * reference Rust implementation.
   *
   * @param name the name to report ({@link #name()})
   * @throws TokenizerException when the file is missing or not a valid tokenizer
   */
  static Tokenizer huggingFace(Path tokenizerJson, String name) {
    return HfTokenizer.load(tokenizerJson, name);
  }
}

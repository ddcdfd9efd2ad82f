package dev.tokenmeter.tokenizer;

import ai.djl.huggingface.tokenizers.HuggingFaceTokenizer;
import ai.djl.huggingface.tokenizers.jni.TokenizersLibrary;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.Map;

/**
 * A Hugging Face {@code tokenizer.json} run by the reference Rust implementation through DJL's
 * JNI binding (the same code as the Python {@code tokenizers} package, so ids match the model's
 * own tokenizer). The native library ships inside DJL's jar and is extracted once to DJL's cache
 * folder ({@code ~/.djl.ai}, or {@code DJL_CACHE_DIR}); nothing is downloaded.
 *
 * <p>Thread-safe: the Rust tokenizer is immutable once built and its encode takes {@code &self}.
 * The handle lives as long as this object.
 */
final class HfTokenizer implements Tokenizer {

  /* design notes
   * encode goes to TokenizersLibrary directly (encode, getTokenIds, deleteEncoding: 3 JNI calls)
   * rather than HuggingFaceTokenizer.encode, which also copies type ids, word ids, masks, offsets
   * and one Java String per token that a count never reads.
   * Truncation and padding are off: DJL otherwise truncates to 512 tokens when the file sets no
   * limit, which would silently cap every count.
   */

  private static final Map<String, String> OPTIONS =
      Map.of("addSpecialTokens", "false", "truncation", "false", "padding", "false");

  static {
    // DJL reports usage from EC2 hosts over the network unless told not to; tokenmeter sends
    // nothing anywhere but to the server under test.
    if (System.getProperty("OPT_OUT_TRACKING") == null) {
      System.setProperty("OPT_OUT_TRACKING", "true");
    }
  }

  private final String name;
  private final HuggingFaceTokenizer tokenizer;
  private final long handle;

  private HfTokenizer(String name, HuggingFaceTokenizer tokenizer) {
    this.name = name;
    this.tokenizer = tokenizer;
    this.handle = tokenizer.getHandle();
  }

  static HfTokenizer load(Path path, String name) {
    Path file = Files.isDirectory(path) ? path.resolve("tokenizer.json") : path;
    if (!Files.isRegularFile(file)) {
      throw new TokenizerException(
          "tokenizer file not found: "
              + file
              + (Files.isDirectory(path) ? " (the folder " + path + " has no tokenizer.json)" : ""));
    }
    try {
      return new HfTokenizer(name, HuggingFaceTokenizer.newInstance(file, OPTIONS));
    } catch (NoSuchFileException e) {
      throw new TokenizerException("tokenizer file not found: " + file, e);
    } catch (IOException e) {
      throw new TokenizerException("cannot read " + file + ": " + e.getMessage(), e);
    } catch (RuntimeException e) {
      // The Rust side reports a malformed file as a RuntimeException with serde's message.
      throw new TokenizerException(
          file + " is not a Hugging Face tokenizer.json: " + e.getMessage(), e);
    } catch (UnsatisfiedLinkError e) {
      throw new TokenizerException(
          "cannot load the Hugging Face tokenizers native library for "
              + System.getProperty("os.name")
              + "/"
              + System.getProperty("os.arch")
              + ": "
              + e.getMessage(),
          e);
    }
  }

  @Override
  public String name() {
    return name;
  }

  @Override
  public int[] encode(CharSequence text) {
    TokenizersLibrary lib = TokenizersLibrary.LIB;
    long encoding = lib.encode(handle, Utf16.wellFormed(text), false);
    long[] ids;
    try {
      ids = lib.getTokenIds(encoding);
    } finally {
      lib.deleteEncoding(encoding);
    }
    int[] out = new int[ids.length];
    for (int i = 0; i < ids.length; i++) {
      out[i] = (int) ids[i];
    }
    return out;
  }

  @Override
  public String decode(int[] ids) {
    long[] longs = new long[ids.length];
    for (int i = 0; i < ids.length; i++) {
      longs[i] = ids[i];
    }
    return tokenizer.decode(longs, /* skipSpecialTokens= */ false);
  }

  @Override
  public String toString() {
    return name;
  }
}

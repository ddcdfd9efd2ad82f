package dev.tokenmeter.tokenizer;

import com.knuddels.jtokkit.Encodings;
import com.knuddels.jtokkit.api.Encoding;
import com.knuddels.jtokkit.api.EncodingRegistry;
import com.knuddels.jtokkit.api.EncodingType;
import com.knuddels.jtokkit.api.IntArrayList;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.util.Locale;

/**
 * OpenAI's encodings through jtokkit, as tiktoken's {@code encode_ordinary}: special-token text
 * is ordinary text. jtokkit's encodings are thread-safe; so is this.
 */
final class TiktokenTokenizer implements Tokenizer {
  /** Loads each vocabulary on first use (o200k_base: about 0.3 s and 30 MB of heap). */
  private static final EncodingRegistry REGISTRY = Encodings.newLazyEncodingRegistry();

  /** The encodings jtokkit ships, by tiktoken name. p50k_edit is left out: it only adds specials. */
  static final java.util.List<String> NAMES =
      java.util.List.of("o200k_base", "cl100k_base", "p50k_base", "r50k_base");

  private final String name;
  private final Encoding encoding;

  private TiktokenTokenizer(String name, Encoding encoding) {
    this.name = name;
    this.encoding = encoding;
  }

  static TiktokenTokenizer of(String name) {
    String key = name.strip().toLowerCase(Locale.ROOT);
    if (!NAMES.contains(key)) {
      throw new TokenizerException(
          "unknown OpenAI encoding '" + name + "'; known: " + String.join(", ", NAMES));
    }
    EncodingType type = EncodingType.fromName(key).orElseThrow();
    return new TiktokenTokenizer(key, REGISTRY.getEncoding(type));
  }

  @Override
  public String name() {
    return name;
  }

  @Override
  public int[] encode(CharSequence text) {
    return encoding.encodeOrdinary(Utf16.wellFormed(text)).toArray();
  }

  @Override
  public int count(CharSequence text) {
    return encoding.countTokensOrdinary(Utf16.wellFormed(text));
  }

  @Override
  public String decode(int[] ids) {
    IntArrayList list = new IntArrayList(ids.length);
    for (int id : ids) {
      list.add(id);
    }
    byte[] bytes = encoding.decodeBytes(list);
    try {
      return StandardCharsets.UTF_8
          .newDecoder()
          .onMalformedInput(CodingErrorAction.REPLACE)
          .onUnmappableCharacter(CodingErrorAction.REPLACE)
          .decode(ByteBuffer.wrap(bytes))
          .toString();
    } catch (CharacterCodingException e) {
      throw new IllegalStateException("cannot happen with REPLACE", e);
    }
  }

  @Override
  public String toString() {
    return name;
  }
}

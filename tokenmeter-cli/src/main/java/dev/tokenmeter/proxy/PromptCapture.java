package dev.tokenmeter.proxy;

import com.fasterxml.jackson.databind.JsonNode;
import dev.tokenmeter.ledger.PromptBlocks;
import java.security.GeneralSecurityException;
import java.security.SecureRandom;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Set;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;

/**
 * The proxy's trace capture (docs/PROXY.md, "Capturing a trace"): at admission, the prompt of a
 * generation request becomes its {@link PromptBlocks}, keyed hashes of fixed-size blocks of its
 * text, for {@code proxy export-trace}. Immutable and thread-safe (one {@link Mac} per thread).
 *
 * <pre>
 * design notes
 * - The text: every string value of the body's prompt members, depth first, each followed by a
 *   newline, members in the order a chat template renders them: system, systemInstruction,
 *   instructions, tools, functions, messages, contents, input, prompt, suffix (OpenAI chat and
 *   completions, Responses, Anthropic, Gemini). Keys, numbers and the inline bytes of images, audio
 *   and files (image_url, input_audio, inline_data/inlineData, source, file_data, file) are left
 *   out. A conversation's next turn resends its history, so its text starts with the last turn's.
 * - Blocks of blockChars UTF-16 characters (default 256: about 64 tokens of English, 4 of vLLM's
 *   16-token blocks; a replay shares up to one block less of each common prefix than production),
 *   hashed chained: h_i = HMAC-SHA256(key, h_{i-1} as 8 bytes || the block's characters as
 *   UTF-16BE), cut to 48 bits. Equal hashes mean equal text up to the end of that block, as a
 *   prefix cache's block hashes do (vLLM hashes the parent block's hash with the block's tokens).
 * - Character blocks, not token blocks: the proxy has no tokenizer for every model and must not
 *   tokenize on the event loop; export-trace converts with the ledger's measured characters per
 *   token (prompt_chars / input_tokens), so block boundaries are where the tokens are on average.
 * - Cost on the event loop: one HMAC per block, next to the JSON parse of the same body the proxy
 *   does anyway: 6.5 ms for a 500 KB prompt on a loaded 2-core machine (about 13 us per KB;
 *   docs/PROXY.md). Hashing on the record path instead would need the body kept until then.
 * - The key: from the environment variable named by trace_key_env (default TOKENMETER_TRACE_KEY),
 *   shared by a fleet so its proxies' hashes agree; without one a random key per process (hashes
 *   then agree only within one run). Without the key a reader of the ledger cannot test a guessed
 *   text against a hash; with it, they can (docs/PROXY.md says what the hashes reveal).
 * </pre>
 *
 * @param enabled whether prompts are hashed at all ({@code trace_capture: false} turns it off)
 * @param blockChars characters per block, at least 16
 * @param key the HMAC key (never logged)
 */
public record PromptCapture(boolean enabled, int blockChars, byte[] key) {
  /**
   * Characters per block unless set: about 64 tokens of English text; 13 bytes of ledger per block,
   * 26 KB for a 120k-token prompt (64 chars would be 4 times that).
   */
  public static final int DEFAULT_BLOCK_CHARS = 256;
  /** The environment variable the key comes from unless {@code trace_key_env} names another. */
  public static final String DEFAULT_KEY_ENV = "TOKENMETER_TRACE_KEY";

  private static final int MIN_BLOCK_CHARS = 16;
  private static final List<String> PROMPT_MEMBERS = List.of("system", "systemInstruction", "instructions", "tools",
      "functions", "messages", "contents", "input", "prompt", "suffix");
  private static final Set<String> NOT_TEXT =
      Set.of("image_url", "input_audio", "inline_data", "inlineData", "source", "file_data", "file");

  /** No capture. */
  public static final PromptCapture OFF = new PromptCapture(false, DEFAULT_BLOCK_CHARS, new byte[0]);

  private static final ThreadLocal<Object[]> MAC = new ThreadLocal<>();

  public PromptCapture {
    if (enabled && (blockChars < MIN_BLOCK_CHARS || key.length == 0)) {
      throw new IllegalArgumentException("blockChars " + blockChars + " or an empty key");
    }
    key = key.clone();
  }

  /** Capture on, with a random 32-byte key of this process's own. */
  public static PromptCapture randomKey(int blockChars) {
    byte[] k = new byte[32];
    new SecureRandom().nextBytes(k);
    return new PromptCapture(true, blockChars, k);
  }

  /**
   * The capture the settings ask for; an error line is added to {@code errors} for a bad setting.
   *
   * @param enabledOrNull trace_capture (null: on)
   * @param blockCharsOrNull trace_block_chars (null: {@link #DEFAULT_BLOCK_CHARS})
   * @param keyEnvOrNull trace_key_env (null: {@link #DEFAULT_KEY_ENV}, and a random key when unset)
   */
  static PromptCapture resolve(Boolean enabledOrNull, Integer blockCharsOrNull, String keyEnvOrNull,
      Map<String, String> env, List<String> errors) {
    if (Boolean.FALSE.equals(enabledOrNull)) {
      return OFF;
    }
    int chars = blockCharsOrNull == null ? DEFAULT_BLOCK_CHARS : blockCharsOrNull;
    if (chars < MIN_BLOCK_CHARS) {
      errors.add("trace_block_chars " + chars + ": at least " + MIN_BLOCK_CHARS + " characters, e.g. "
          + DEFAULT_BLOCK_CHARS);
      return OFF;
    }
    String name = keyEnvOrNull == null ? DEFAULT_KEY_ENV : keyEnvOrNull;
    String value = env.get(name);
    if (value == null || value.isBlank()) {
      if (keyEnvOrNull != null) {
        errors.add("trace_key_env: environment variable " + name + " is not set; set it to a secret of 16 or more"
            + " characters (e.g. openssl rand -hex 32), the same on every proxy of the deployment");
        return OFF;
      }
      return randomKey(chars);
    }
    if (value.strip().length() < 16) {
      errors.add("trace key in " + name + ": at least 16 characters, e.g. the output of 'openssl rand -hex 32'");
      return OFF;
    }
    return new PromptCapture(true, chars, value.strip().getBytes(java.nio.charset.StandardCharsets.UTF_8));
  }

  /**
   * The prompt blocks of a request body, or null when capture is off, the body is not a JSON object
   * or it holds no prompt text.
   */
  public PromptBlocks blocks(JsonNode bodyOrNull) {
    if (!enabled || bodyOrNull == null || !bodyOrNull.isObject()) {
      return null;
    }
    StringBuilder text = new StringBuilder();
    for (String member : PROMPT_MEMBERS) {
      JsonNode n = bodyOrNull.get(member);
      if (n != null) {
        appendText(n, text);
      }
    }
    return text.isEmpty() ? null : hash(text);
  }

  /** The chained, keyed block hashes of {@code text}. */
  PromptBlocks hash(CharSequence text) {
    Object[] state = macState();
    Mac mac = (Mac) state[0];
    byte[] buf = (byte[]) state[1];
    if (buf.length < 8 + 2 * blockChars) {
      buf = new byte[8 + 2 * blockChars];
      state[1] = buf;
    }
    int n = text.length();
    long[] hashes = new long[(n + blockChars - 1) / blockChars];
    long prev = 0;
    for (int b = 0; b < hashes.length; b++) {
      int from = b * blockChars;
      int to = Math.min(n, from + blockChars);
      for (int i = 0; i < 8; i++) {
        buf[i] = (byte) (prev >>> (56 - 8 * i));
      }
      int len = 8;
      for (int i = from; i < to; i++) {
        char c = text.charAt(i);
        buf[len++] = (byte) (c >>> 8);
        buf[len++] = (byte) c;
      }
      mac.update(buf, 0, len);
      byte[] out = mac.doFinal();
      long h = 0;
      for (int i = 0; i < 8; i++) {
        h = (h << 8) | (out[i] & 0xff);
      }
      prev = h;
      hashes[b] = PromptBlocks.keep(h);
    }
    return new PromptBlocks(hashes, n, blockChars);
  }

  private Object[] macState() {
    Object[] state = MAC.get();
    if (state == null || !java.util.Arrays.equals((byte[]) state[2], key)) {
      try {
        Mac mac = Mac.getInstance("HmacSHA256");
        mac.init(new SecretKeySpec(key, "HmacSHA256"));
        state = new Object[] {mac, new byte[8 + 2 * blockChars], key};
      } catch (GeneralSecurityException e) {
        throw new IllegalStateException("HmacSHA256 is part of every JDK", e);
      }
      MAC.set(state);
    }
    return state;
  }

  private static void appendText(JsonNode n, StringBuilder text) {
    if (n.isTextual()) {
      text.append(n.textValue()).append('\n');
    } else if (n.isArray()) {
      for (JsonNode item : n) {
        appendText(item, text);
      }
    } else if (n.isObject()) {
      List<String> names = new ArrayList<>();
      for (Iterator<String> it = n.fieldNames(); it.hasNext(); ) {
        names.add(it.next());
      }
      for (String name : names) {
        if (!NOT_TEXT.contains(name)) {
          appendText(n.get(name), text);
        }
      }
    }
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof PromptCapture p && p.enabled == enabled && p.blockChars == blockChars
        && java.util.Arrays.equals(p.key, key);
  }

  @Override
  public int hashCode() {
    return 31 * Boolean.hashCode(enabled) + blockChars;
  }

  @Override
  public String toString() {
    return enabled ? "PromptCapture[" + blockChars + " chars a block]" : "PromptCapture[off]";
  }
}

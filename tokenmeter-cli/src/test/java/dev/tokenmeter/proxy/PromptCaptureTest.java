package dev.tokenmeter.proxy;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.tokenmeter.ledger.PromptBlocks;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The proxy's prompt hashing: prefixes share hashes, keys and positions do not, only prompt text counts. */
class PromptCaptureTest {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final PromptCapture CAPTURE =
      new PromptCapture(true, 32, "a key of the deployment, 32 chars".getBytes(StandardCharsets.UTF_8));
  private static final String SYSTEM = "You answer questions about invoices, briefly. ".repeat(5); // 230 chars

  private static ObjectNode chat(String... turns) {
    ObjectNode body = JSON.createObjectNode().put("model", "m").put("max_tokens", 9);
    ArrayNode messages = body.putArray("messages");
    messages.addObject().put("role", "system").put("content", SYSTEM);
    for (int i = 0; i < turns.length; i++) {
      messages.addObject().put("role", i % 2 == 0 ? "user" : "assistant").put("content", turns[i]);
    }
    return body;
  }

  private static int common(PromptBlocks a, PromptBlocks b) {
    int n = 0;
    while (n < Math.min(a.hashes().length, b.hashes().length) && a.hashes()[n] == b.hashes()[n]) {
      n++;
    }
    return n;
  }

  @Test
  void aNextTurnSharesEveryWholeBlockOfThePreviousTurn() {
    PromptBlocks one = CAPTURE.blocks(chat("What is due in May?"));
    PromptBlocks two = CAPTURE.blocks(chat("What is due in May?", "Invoice 7, 120 EUR.", "And in June?"));
    // The text: "system\n" + SYSTEM + "\n" + "user\n" + question + "\n" = 7 + 231 + 5 + 20 chars.
    assertThat(one.chars()).isEqualTo("system\n".length() + SYSTEM.length() + 1 + "user\n".length() + 20);
    assertThat(one.hashes()).hasSize((one.chars() + 31) / 32);
    assertThat(one.blockChars()).isEqualTo(32);
    int whole = one.chars() / 32;
    assertThat(common(one, two)).isEqualTo(whole); // the partial last block of turn 1 is not a block of turn 2
    for (long h : two.hashes()) {
      assertThat(h).isBetween(0L, (1L << PromptBlocks.BITS) - 1);
    }
  }

  @Test
  void hashesAreChainedSoEqualTextAfterADifferenceSharesNothing() {
    String tail = "x".repeat(320);
    PromptBlocks a = CAPTURE.blocks(chat("Question A " + tail));
    PromptBlocks b = CAPTURE.blocks(chat("Question B " + tail));
    int system = ("system\n" + SYSTEM + "\nuser\nQuestion ").length() / 32;
    assertThat(common(a, b)).isEqualTo(system);
    for (int i = system; i < a.hashes().length; i++) {
      assertThat(Arrays.binarySearch(sorted(b), a.hashes()[i])).as("block %d", i).isNegative();
    }
  }

  @Test
  void anotherKeyGivesOtherHashes() {
    PromptCapture other = new PromptCapture(true, 32, "another deployment's key, 32 ch".getBytes(StandardCharsets.UTF_8));
    PromptBlocks a = CAPTURE.blocks(chat("hello"));
    PromptBlocks b = other.blocks(chat("hello"));
    assertThat(b.chars()).isEqualTo(a.chars());
    for (long h : b.hashes()) {
      assertThat(Arrays.binarySearch(sorted(a), h)).isNegative();
    }
  }

  @Test
  void onlyPromptTextCountsInTheTemplatesOrder() {
    ObjectNode plain = JSON.createObjectNode().put("model", "m").put("system", SYSTEM);
    plain.putArray("messages").addObject().put("role", "user").put("content", "describe it");
    ObjectNode reordered = JSON.createObjectNode();
    reordered.set("messages", plain.get("messages").deepCopy());
    reordered.put("temperature", 0.3).put("system", SYSTEM).put("stream", true).put("model", "other");
    assertThat(CAPTURE.blocks(reordered)).isEqualTo(CAPTURE.blocks(plain));

    ObjectNode image = plain.deepCopy();
    ArrayNode content = ((ObjectNode) image.get("messages").get(0)).putArray("content");
    content.addObject().put("type", "text").put("text", "describe it");
    content.addObject().put("type", "image_url").putObject("image_url").put("url", "data:image/png;base64,"
        + "iVBORw0KGgo".repeat(500));
    // the part's "type" values are text of the body; the image's bytes are not
    assertThat(CAPTURE.blocks(image).chars()).isEqualTo(CAPTURE.blocks(plain).chars() + "text\n".length()
        + "image_url\n".length());
  }

  @Test
  void noPromptOrCaptureOffGivesNone() {
    assertThat(CAPTURE.blocks(JSON.createObjectNode().put("model", "m"))).isNull();
    assertThat(CAPTURE.blocks(null)).isNull();
    assertThat(PromptCapture.OFF.blocks(chat("hello"))).isNull();
    assertThat(CAPTURE.blocks(JSON.createObjectNode().put("prompt", "def f(x):").put("suffix", "return y")).hashes())
        .hasSize(1);
  }

  @Test
  void settingsNameTheKeyAndBlockSize() {
    List<String> errors = new ArrayList<>();
    assertThat(PromptCapture.resolve(false, null, null, Map.of(), errors)).isEqualTo(PromptCapture.OFF);
    PromptCapture random = PromptCapture.resolve(null, null, null, Map.of(), errors);
    assertThat(random.enabled()).isTrue();
    assertThat(random.blockChars()).isEqualTo(PromptCapture.DEFAULT_BLOCK_CHARS);
    PromptCapture keyed = PromptCapture.resolve(null, 64, null, Map.of("TOKENMETER_TRACE_KEY", "k".repeat(20)), errors);
    assertThat(keyed.key()).isEqualTo("k".repeat(20).getBytes(StandardCharsets.UTF_8));
    assertThat(errors).isEmpty();
    // two proxies of a fleet with the same key agree
    assertThat(PromptCapture.resolve(null, 64, "MY_KEY", Map.of("MY_KEY", "k".repeat(20)), errors).blocks(chat("hi")))
        .isEqualTo(keyed.blocks(chat("hi")));
    PromptCapture.resolve(null, 8, null, Map.of(), errors);
    PromptCapture.resolve(null, null, "MISSING", Map.of(), errors);
    PromptCapture.resolve(null, null, null, Map.of("TOKENMETER_TRACE_KEY", "short"), errors);
    assertThat(errors).hasSize(3);
    assertThat(errors.get(0)).contains("trace_block_chars 8: at least 16");
    assertThat(errors.get(1)).contains("MISSING is not set");
    assertThat(errors.get(2)).contains("at least 16 characters");
  }

  private static long[] sorted(PromptBlocks b) {
    long[] s = b.hashes().clone();
    Arrays.sort(s);
    return s;
  }
}

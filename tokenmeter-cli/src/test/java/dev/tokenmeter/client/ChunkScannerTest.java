package dev.tokenmeter.client;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tokenmeter.core.request.StreamItem;
import dev.tokenmeter.core.request.TextKind;
import dev.tokenmeter.sse.SseFramer;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.net.URISyntaxException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The in-place scanner against the full parser: on every payload of every transcript in
 * src/test/resources/transcripts and on a seeded mutation fuzz of them, the scanner either declines
 * or yields exactly the full parser's items (and the full parser accepts the payload).
 */
class ChunkScannerTest {

  /** The scanner's items, or null when it declined; fails when it disagrees with the full parse. */
  static List<StreamItem> compare(byte[] b, int offset, int length) {
    List<StreamItem> scanned = new ArrayList<>();
    boolean handled = new ChunkScanner().scan(b, offset, length, scanned::add);
    if (!handled) {
      assertThat(scanned).as("a declined payload delivers nothing").isEmpty();
      return null;
    }
    List<StreamItem> full = new ArrayList<>();
    try {
      new ChunkParser().parseFull(b, offset, length, full::add);
    } catch (ProtocolException e) {
      throw new AssertionError(
          "scanned, but the full parser rejects it (" + e.getMessage() + "): "
              + new String(b, offset, length, StandardCharsets.UTF_8), e);
    }
    assertThat(scanned).as(new String(b, offset, length, StandardCharsets.UTF_8)).isEqualTo(full);
    return scanned;
  }

  static List<StreamItem> compare(String payload) {
    byte[] b = payload.getBytes(StandardCharsets.UTF_8);
    return compare(b, 0, b.length);
  }

  /** Every data payload (SSE), line (NDJSON) or body of the golden transcripts. */
  static List<byte[]> transcriptPayloads(String name) {
    byte[] bytes = resource(name);
    List<byte[]> payloads = new ArrayList<>();
    if (name.endsWith(".sse")) {
      SseFramer framer =
          new SseFramer(e -> payloads.add(java.util.Arrays.copyOf(e.dataBytes(), e.dataLength())));
      framer.feed(bytes, 0, bytes.length);
    } else if (name.endsWith(".ndjson")) {
      new LineFramer((b, o, n) -> payloads.add(java.util.Arrays.copyOfRange(b, o, o + n)))
          .feed(bytes, 0, bytes.length);
    } else {
      int start = 0; // bodies open with a "// source" line
      while (start < bytes.length && bytes[start] != '{') {
        start++;
      }
      payloads.add(java.util.Arrays.copyOfRange(bytes, start, bytes.length));
    }
    return payloads;
  }

  static List<String> transcriptNames() {
    try (Stream<Path> files =
        Files.list(Path.of(ChunkScannerTest.class.getResource("/transcripts").toURI()))) {
      return files.map(p -> p.getFileName().toString()).sorted().toList();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    } catch (URISyntaxException e) {
      throw new IllegalStateException(e);
    }
  }

  private static byte[] resource(String name) {
    try (InputStream in = ChunkScannerTest.class.getResourceAsStream("/transcripts/" + name)) {
      return in.readAllBytes();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  @Test
  void agreesWithTheFullParserOnEveryTranscriptPayload() {
    List<String> names = transcriptNames();
    assertThat(names).hasSizeGreaterThan(30);
    int payloads = 0;
    for (String name : names) {
      for (byte[] p : transcriptPayloads(name)) {
        compare(p, 0, p.length);
        payloads++;
      }
    }
    assertThat(payloads).isGreaterThan(150); // 170 in 39 transcripts
  }

  @ParameterizedTest
  @ValueSource(
      strings = {
        "openai-chat.sse",
        "vllm-chat-usage.sse",
        "vllm-completions-usage.sse",
        "deepseek-reasoner.sse",
        "llamacpp-chat.sse",
        "tgi-chat.sse"
      })
  void scansEveryPayloadOfTheCommonStreams(String name) {
    for (byte[] p : transcriptPayloads(name)) {
      assertThat(compare(p, 0, p.length))
          .as("%s: %s", name, new String(p, StandardCharsets.UTF_8))
          .isNotNull();
    }
  }

  @ParameterizedTest
  @ValueSource(
      strings = {
        "{\"error\":{\"message\":\"boom\",\"type\":\"server_error\"}}", // errors: full parse
        "{\"object\":\"error\",\"message\":\"bad\",\"choices\":[]}",
        "{\"object\":\"err\\u006fr\",\"message\":\"bad\",\"choices\":[]}",
        "{\"choices\":[{\"delta\":{\"tool_calls\":[{\"function\":{\"arguments\":\"{}\"}}]}}]}",
        "{\"choices\":[{\"delta\":{\"content\":\"caf\\u00e9\"}}], \"id\":01}", // leading zero
        "{\"choices\":[{\"delta\":{\"content\":\"a\tb\"}}]}", // raw control character
        "{\"id\":\"x\"}", // neither choices nor usage
        "{\"choices\":[{\"delta\":{\"content\":\"x\"}},]}", // trailing comma
        "{\"choices\":[]} x",
        "{\"usage\":{\"completion_tokens\":12345678901}}", // beyond an int
        "{\"usage\":{\"completion_tokens\":1.0}}",
        "{\"ch\\u006fices\":[]}", // escaped name
        "{\"choices\":[],\"x\":[[[[[[[[[[1]]]]]]]]]]}", // deeper than the scanner goes
        "[1]",
        "",
        "{\"choices\":[{\"delta\":{\"content\":\"\\x\"}}]}",
        // surrogate escapes, paired or not (found by ChunkScannerFuzzIT: Jackson rejects a lone
        // low surrogate in a field name, here inside a skipped object)
        "{\"choices\":[{\"delta\":{\"content\":\"\\ud83d\\ude00\"}}]}",
        "{\"choices\":[],\"timings\":{\"a\\ude5cb\":1}}"
      })
  void declinesWhatTheFullParseMustDecide(String payload) {
    assertThat(compare(payload)).isNull();
  }

  @Test
  void declinesInvalidUtf8() {
    byte[][] bad = {
      {(byte) 0xC0, (byte) 0xAF}, // overlong
      {(byte) 0xED, (byte) 0xA0, (byte) 0x80}, // a surrogate
      {(byte) 0xF4, (byte) 0x90, (byte) 0x80, (byte) 0x80}, // above U+10FFFF
      {(byte) 0xE2, (byte) 0x82}, // cut short
      {(byte) 0x80}
    };
    for (byte[] seq : bad) {
      byte[] head = "{\"choices\":[{\"delta\":{\"content\":\"a".getBytes(StandardCharsets.UTF_8);
      byte[] tail = "\"}}]}".getBytes(StandardCharsets.UTF_8);
      byte[] p = new byte[head.length + seq.length + tail.length];
      System.arraycopy(head, 0, p, 0, head.length);
      System.arraycopy(seq, 0, p, head.length, seq.length);
      System.arraycopy(tail, 0, p, head.length + seq.length, tail.length);
      assertThat(new ChunkScanner().scan(p, 0, p.length, i -> {})).isFalse();
    }
  }

  @Test
  void decodesEscapesAndUtf8AsJacksonDoes() {
    assertThat(
            compare(
                "{\"choices\":[{\"index\":0,\"delta\":{\"role\":\"tool\",\"content\":"
                    + "\"\\\"caf\\u00e9\\\" \\\\ \\/ \\b\\f\\n\\r\\t 日本 😀\"},"
                    + "\"logprobs\":{\"content\":[{\"token\":\"x\",\"logprob\":-0.5e-3,\"bytes\":[1,2]}]},"
                    + "\"finish_reason\":\"sto\\u0070\"}],\"usage\":null,\"flag\":true,\"no\":false}"))
        .containsExactly(
            new StreamItem.Role("tool"),
            new StreamItem.Text("\"café\" \\ / \b\f\n\r\t 日本 😀", TextKind.CONTENT),
            new StreamItem.Finish("stop"));
    assertThat(
            compare(
                " {\"choices\":[{\"text\":\"x\",\"finish_reason\":\"length\"},{\"text\":\"\"}],"
                    + "\"usage\":{\"prompt_tokens\":3,\"completion_tokens\":-0,\"prompt_tokens_details\":"
                    + "{\"cached_tokens\":2,\"audio\":null},\"completion_tokens_details\":null}}\r\n"))
        .containsExactly(
            new StreamItem.Text("x", TextKind.CONTENT),
            new StreamItem.Finish("length"),
            new StreamItem.Usage(3, 0, -1, 2));
    assertThat(compare("  [DONE] ")).containsExactly(new StreamItem.Done());
  }

  @Test
  void staysInsideItsSliceOfALargerArray() {
    byte[] chunk =
        "{\"choices\":[{\"delta\":{\"content\":\"hi\"}}]}".getBytes(StandardCharsets.UTF_8);
    byte[] buf = new byte[chunk.length + 20];
    java.util.Arrays.fill(buf, (byte) '}');
    System.arraycopy(chunk, 0, buf, 10, chunk.length);
    assertThat(compare(buf, 10, chunk.length)).hasSize(1);
    for (int cut = 1; cut < chunk.length; cut++) {
      assertThat(compare(buf, 10, cut)).as("cut at %d", cut).isNull();
    }
  }

  /** Seeded mutations of the transcripts' payloads: flips, insertions, deletions, cuts. */
  @Test
  void agreesWithTheFullParserOnMutatedPayloads() {
    List<byte[]> seeds = new ArrayList<>();
    for (String name : transcriptNames()) {
      seeds.addAll(transcriptPayloads(name));
    }
    byte[] alphabet =
        "{}[]:,\"\\u0123456789abcdefnulltruefalse-+.eE \t\r\n/bfnrt"
            .getBytes(StandardCharsets.US_ASCII);
    Random random = new Random(20261125);
    int scanned = 0;
    for (int round = 0; round < 40_000; round++) {
      byte[] p = seeds.get(random.nextInt(seeds.size())).clone();
      int edits = 1 + random.nextInt(3);
      for (int e = 0; e < edits && p.length > 0; e++) {
        p = mutate(p, random, alphabet);
      }
      if (compare(p, 0, p.length) != null) {
        scanned++;
      }
    }
    assertThat(scanned).as("mutants the scanner read itself").isGreaterThan(1_000);
  }

  private static byte[] mutate(byte[] p, Random random, byte[] alphabet) {
    int at = random.nextInt(p.length);
    return switch (random.nextInt(5)) {
      case 0 -> {
        p[at] = alphabet[random.nextInt(alphabet.length)];
        yield p;
      }
      case 1 -> {
        p[at] = (byte) random.nextInt(256);
        yield p;
      }
      case 2 -> {
        byte[] q = new byte[p.length + 1];
        System.arraycopy(p, 0, q, 0, at);
        q[at] = alphabet[random.nextInt(alphabet.length)];
        System.arraycopy(p, at, q, at + 1, p.length - at);
        yield q;
      }
      case 3 -> {
        byte[] q = new byte[p.length - 1];
        System.arraycopy(p, 0, q, 0, at);
        System.arraycopy(p, at + 1, q, at, p.length - at - 1);
        yield q;
      }
      default -> java.util.Arrays.copyOf(p, at);
    };
  }
}

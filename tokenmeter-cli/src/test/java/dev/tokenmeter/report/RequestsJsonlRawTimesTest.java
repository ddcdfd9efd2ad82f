package dev.tokenmeter.report;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.tokenmeter.core.metrics.RequestMetrics;
import dev.tokenmeter.core.request.Outcome;
import dev.tokenmeter.core.request.Phase;
import dev.tokenmeter.core.request.Prompt;
import dev.tokenmeter.core.request.RequestSpec;
import dev.tokenmeter.core.request.RequestTimeline;
import dev.tokenmeter.core.request.StreamItem;
import dev.tokenmeter.core.request.TextKind;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.OptionalInt;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code --raw-times}: raw clock readings in requests.jsonl, and none without it. */
class RequestsJsonlRawTimesTest {
  private static final ObjectMapper JSON = new ObjectMapper();

  /** Sent at 1,000,500 ns; role chunk (not text), two text chunks, finish; run started at 1 ms. */
  private static RequestTimeline timeline() {
    RequestSpec spec = new RequestSpec(7, new Prompt.Text("hi"), 1, false, OptionalInt.empty());
    RequestTimeline t = new RequestTimeline(spec, 0, Phase.MEASURED, 1_000_000);
    t.sent(1_000_500);
    t.item(new StreamItem.Role("assistant"), 2_000_000);
    t.item(new StreamItem.Text("a", TextKind.CONTENT), 51_000_000);
    t.item(new StreamItem.Text("b", TextKind.CONTENT), 71_250_000);
    t.item(new StreamItem.Finish("stop"), 71_250_000);
    t.end(new Outcome.Completed("stop"), 71_300_000);
    return t;
  }

  private static JsonNode writeOne(Path file, boolean raw) throws Exception {
    RequestTimeline t = timeline();
    try (RequestsJsonlWriter w = new RequestsJsonlWriter(file, 1_000_000, raw)) {
      w.accept(t, RequestMetrics.of(t, null));
    }
    List<String> lines = Files.readAllLines(file);
    assertThat(lines).hasSize(1);
    return JSON.readTree(lines.get(0));
  }

  @Test
  void rawTimesCarryTheTickerValuesOfSendAndEveryTextChunk(@TempDir Path dir) throws Exception {
    JsonNode n = writeOne(dir.resolve("r.jsonl"), true);
    assertThat(n.get("id").asLong()).isEqualTo(7);
    assertThat(n.get("sent_ns").asLong()).isEqualTo(1_000_500L);
    assertThat(n.get("chunk_ns")).hasSize(2);
    assertThat(n.get("chunk_ns").get(0).asLong()).isEqualTo(51_000_000L);
    assertThat(n.get("chunk_ns").get(1).asLong()).isEqualTo(71_250_000L);
    // The relative fields are unchanged: sent 0.5 us after run start, TTFT 51.0 - 1.0005 ms.
    assertThat(n.get("sent_at_ms").asDouble()).isEqualTo(0.001);
    assertThat(n.get("ttft_ms").asDouble()).isEqualTo(49.9995, org.assertj.core.data.Offset.offset(0.0011));
  }

  @Test
  void withoutTheOptionNoRawFieldsAreWritten(@TempDir Path dir) throws Exception {
    JsonNode n = writeOne(dir.resolve("r.jsonl"), false);
    assertThat(n.has("sent_ns")).isFalse();
    assertThat(n.has("chunk_ns")).isFalse();
    assertThat(n.get("chunks").asInt()).isEqualTo(2);
  }
}

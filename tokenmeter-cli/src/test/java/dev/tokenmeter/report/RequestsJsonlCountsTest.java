package dev.tokenmeter.report;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.tokenmeter.core.metrics.OutputTokenCounter;
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

/** requests.jsonl keeps the server's and the tokenizer's output counts side by side, and words. */
class RequestsJsonlCountsTest {
  private static final ObjectMapper JSON = new ObjectMapper();

  private static RequestTimeline answered(boolean usage) {
    RequestSpec spec = new RequestSpec(3, new Prompt.Text("hi"), 1, true, OptionalInt.empty());
    RequestTimeline t = new RequestTimeline(spec, 0, Phase.MEASURED, 0);
    t.sent(10);
    t.item(new StreamItem.Text("Hello there,", TextKind.CONTENT), 20);
    t.item(new StreamItem.Text(" world", TextKind.CONTENT), 30);
    t.item(new StreamItem.Finish("stop"), 30);
    if (usage) {
      t.item(new StreamItem.Usage(9, 5, -1), 30);
    }
    t.end(new Outcome.Completed("stop"), 40);
    return t;
  }

  private static JsonNode line(Path file, RequestTimeline t) throws Exception {
    try (RequestsJsonlWriter w = new RequestsJsonlWriter(file, 0)) {
      w.accept(t, RequestMetrics.of(t, OutputTokenCounter.named("fixed", text -> 4)));
    }
    List<String> lines = Files.readAllLines(file);
    return JSON.readTree(lines.get(0));
  }

  @Test
  void withUsageBothCountsAreWrittenAndUsageIsN(@TempDir Path dir) throws Exception {
    JsonNode n = line(dir.resolve("a.jsonl"), answered(true));
    assertThat(n.get("output_tokens").asInt()).isEqualTo(5);
    assertThat(n.get("output_tokens_source").asText()).isEqualTo("usage");
    assertThat(n.get("usage_completion_tokens").asInt()).isEqualTo(5);
    assertThat(n.get("tokenizer_output_tokens").asInt()).isEqualTo(4);
    assertThat(n.get("output_words").asInt()).isEqualTo(3); // Hello, there, world
  }

  @Test
  void withoutUsageTheTokenizerIsN(@TempDir Path dir) throws Exception {
    JsonNode n = line(dir.resolve("b.jsonl"), answered(false));
    assertThat(n.get("output_tokens").asInt()).isEqualTo(4);
    assertThat(n.get("output_tokens_source").asText()).isEqualTo("tokenizer");
    assertThat(n.has("usage_completion_tokens")).isFalse();
    assertThat(n.get("tokenizer_output_tokens").asInt()).isEqualTo(4);
  }
}

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

/** A response whose tokens all came in one read: TPOT and decode TPS are null, never 0 or NaN. */
class RequestsJsonlOneReadTest {
  private static final ObjectMapper JSON = new ObjectMapper();

  /** 12 tokens (usage) in one chunk, or in two chunks 30 ms apart. */
  private static RequestTimeline timeline(long id, boolean oneRead) {
    RequestSpec spec = new RequestSpec(id, new Prompt.Text("hi"), 1, false, OptionalInt.empty());
    RequestTimeline t = new RequestTimeline(spec, 0, Phase.MEASURED, 1_000_000);
    t.sent(1_000_000);
    t.item(new StreamItem.Text("the whole answer", TextKind.CONTENT), 51_000_000);
    long end = 51_000_000;
    if (!oneRead) {
      end = 81_000_000;
      t.item(new StreamItem.Text(" and more", TextKind.CONTENT), end);
    }
    t.item(new StreamItem.Usage(4, 12, 0), end);
    t.item(new StreamItem.Finish("stop"), end);
    t.end(new Outcome.Completed("stop"), end);
    return t;
  }

  @Test
  void oneReadWritesNullTpotAndNullDecodeTps(@TempDir Path dir) throws Exception {
    Path file = dir.resolve("requests.jsonl");
    try (RequestsJsonlWriter w = new RequestsJsonlWriter(file, 0, false)) {
      for (long id = 0; id < 2; id++) {
        RequestTimeline t = timeline(id, id == 0);
        w.accept(t, RequestMetrics.of(t, null));
      }
    }
    List<String> lines = Files.readAllLines(file);
    JsonNode oneRead = JSON.readTree(lines.get(0));
    assertThat(oneRead.get("tpot_ms").isNull()).isTrue();
    assertThat(oneRead.get("decode_tps").isNull()).isTrue();
    assertThat(oneRead.get("output_tokens").asInt()).isEqualTo(12);
    assertThat(lines.get(0)).doesNotContain("NaN").doesNotContain("Infinity");
    JsonNode twoReads = JSON.readTree(lines.get(1));
    assertThat(twoReads.get("tpot_ms").asDouble()).isEqualTo(30.0 / 11, org.assertj.core.data.Offset.offset(0.001));
  }
}

package dev.tokenmeter.workload;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Each trace format read from a sample written from its published description (traces/README.md). */
class TraceTest {
  @TempDir Path dir;

  static Path sample(String name) {
    try {
      return Path.of(TraceTest.class.getResource("traces/" + name).toURI());
    } catch (URISyntaxException e) {
      throw new IllegalStateException(e);
    }
  }

  @Test
  void mooncakeIsDetectedAndReadWithItsBlocks() {
    Trace t = Trace.read(sample("mooncake.jsonl"), null, 512);
    assertThat(t.format()).isEqualTo(TraceFormat.MOONCAKE);
    assertThat(t.records()).hasSize(4);
    Trace.Record second = t.records().get(1);
    assertThat(second.inputTokens()).isEqualTo(7319);
    assertThat(second.outputTokens()).isEqualTo(490);
    assertThat(second.hashIds()).hasSize(15).startsWith(0, 14, 15);
    assertThat(t.offsetsNanos()).containsExactly(0, 0, 3_052_000_000L, 3_052_000_000L);
    assertThat(t.blockReuse()).containsExactly(46, 49); // block 0 is shared by all four
  }

  @Test
  void burstGptSkipsFailedRowsAndStartsAtZero() {
    Trace t = Trace.read(sample("burstgpt.csv"), null, 512);
    assertThat(t.format()).isEqualTo(TraceFormat.BURSTGPT);
    assertThat(t.records()).extracting(Trace.Record::inputTokens).containsExactly(472, 1087, 417, 1305);
    assertThat(t.records()).extracting(Trace.Record::outputTokens).containsExactly(18, 230, 276, 477);
    assertThat(t.offsetsNanos()).containsExactly(0, 40_000_000_000L, 113_000_000_000L, 1_124_000_000_000L);
    assertThat(t.skipped()).isEqualTo(1);
    assertThat(t.records().get(0).hashIds()).isEmpty();
  }

  @Test
  void azureDateTimesBecomeOffsetsToTheHundredNanosecond() {
    Trace t = Trace.read(sample("azure.csv"), null, 512);
    assertThat(t.format()).isEqualTo(TraceFormat.AZURE);
    assertThat(t.records()).extracting(Trace.Record::inputTokens).containsExactly(374, 396, 879, 91);
    assertThat(t.offsetsNanos()).containsExactly(0, 4_314_579_000L, 4_792_677_000L, 6_785_410_000L);
  }

  @Test
  void tokenmeterFormatKeepsSessionsTurnsAndFractionalMillis() {
    Trace t = Trace.read(sample("tokenmeter.jsonl"), null, 512);
    assertThat(t.format()).isEqualTo(TraceFormat.TOKENMETER);
    assertThat(t.offsetsNanos()).containsExactly(0, 250_500_000L, 4_000_000_000L);
    assertThat(t.records()).extracting(Trace.Record::session).containsExactly("s1", "s2", "s1");
    assertThat(t.records()).extracting(Trace.Record::turn).containsExactly(1, 1, 2);
    assertThat(t.records().get(1).hashIds()).isEmpty();
    assertThat(t.hasSessions()).isTrue();
  }

  @Test
  void bailianIsDetectedWithSixteenTokenBlocksAndSessionsFromParentChats() {
    Trace t = Trace.read(sample("bailian.jsonl"), null, 0);
    assertThat(t.format()).isEqualTo(TraceFormat.BAILIAN);
    assertThat(t.blockTokens()).isEqualTo(16);
    assertThat(t.offsetsNanos()).containsExactly(0, 1_112_000_000L, 1_498_000_000L, 2_248_000_000L);
    // 159's parent is 55 (a root), 161's is 159: one conversation; 160 is a root of its own.
    assertThat(t.records()).extracting(Trace.Record::session).containsExactly("chat-55", "chat-55", "chat-160",
        "chat-55");
    assertThat(t.records()).extracting(Trace.Record::turn).containsExactly(1, 2, 1, 3);
    assertThat(t.records().get(1).inputTokens()).isEqualTo(521);
    assertThat(t.records().get(1).outputTokens()).isEqualTo(132);
    assertThat(t.records().get(1).hashIds()).hasSize(33).startsWith(1089, 1090);
    // Read as 512-token blocks, the 33 ids of a 521-token prompt are too many: the format's own size matters.
    assertThatThrownBy(() -> Trace.read(sample("bailian.jsonl"), null, 512))
        .hasMessageContaining("bailian.jsonl:1:").hasMessageContaining("19 blocks of 512 tokens");
  }

  @Test
  void aTokenmeterTraceNamesItsOwnBlockSize() throws IOException {
    Path f = dir.resolve("export.jsonl");
    Files.writeString(f, "{\"at_ms\": 0, \"input_tokens\": 100, \"output_tokens\": 5, \"hash_ids\": [0, 1, 2, 3],"
        + " \"block_tokens\": 30}\n{\"at_ms\": 9, \"input_tokens\": 40, \"output_tokens\": 5}\n");
    assertThat(Trace.read(f, null, 0).blockTokens()).isEqualTo(30);
    assertThat(Trace.read(f, null, 30).blockTokens()).isEqualTo(30);
    assertThatThrownBy(() -> Trace.read(f, null, 512)).isInstanceOf(WorkloadException.class)
        .hasMessageContaining("export.jsonl:1:").hasMessageContaining("blocks are 30 tokens")
        .hasMessageContaining("drop --trace-block-tokens");
    Files.writeString(f, "{\"at_ms\": 0, \"input_tokens\": 100, \"output_tokens\": 5, \"block_tokens\": 30}\n"
        + "{\"at_ms\": 9, \"input_tokens\": 40, \"output_tokens\": 5, \"block_tokens\": 16}\n");
    assertThatThrownBy(() -> Trace.read(f, null, 0)).hasMessageContaining("export.jsonl:2:")
        .hasMessageContaining("\"block_tokens\" is 16 here but 30 on line 1");
  }

  @Test
  void anExplicitFormatOverridesDetection() {
    assertThatThrownBy(() -> Trace.read(sample("azure.csv"), TraceFormat.BURSTGPT, 512))
        .isInstanceOf(WorkloadException.class)
        .hasMessageContaining("azure.csv:1:").hasMessageContaining("no column \"Timestamp\"");
  }

  @Test
  void badRowsNameFileLineAndField() throws IOException {
    assertThat(error("{\"timestamp\": 0, \"input_length\": 10, \"output_length\": 5}\n"
        + "{\"timestamp\": 5, \"input_length\": 0, \"output_length\": 5}\n"))
        .contains("t.txt:2:").contains("\"input_length\" must be a whole number of tokens >= 1");
    assertThat(error("{\"timestamp\": 10, \"input_length\": 10, \"output_length\": 5}\n"
        + "{\"timestamp\": 5, \"input_length\": 10, \"output_length\": 5}\n"))
        .contains("t.txt:2:").contains("goes back in time").contains("sort the trace");
    assertThat(error("{\"timestamp\": 0, \"input_length\": 600, \"output_length\": 5, \"hash_ids\": [1, 2, 3]}\n"))
        .contains("t.txt:1:").contains("3 blocks of 512 tokens").contains("(2 blocks at most)");
    assertThat(error("TIMESTAMP,ContextTokens,GeneratedTokens\nyesterday,10,5\n"))
        .contains("t.txt:2:").contains("\"TIMESTAMP\" must be a date-time");
    assertThat(error("Timestamp,Model,Request tokens,Response tokens,Total tokens,Log Type\n1,GPT-4,ten,5,15,API log\n"))
        .contains("t.txt:2:").contains("\"Request tokens\"");
    assertThat(error("\n\n")).contains("the trace is empty");
    assertThat(error("a,b,c\n1,2,3\n")).contains("t.txt:1:").contains("not a trace format");
    assertThat(error("{\"timestamp\": 0, \"input_length\": 10, \"output_length\": 5}\nnot json\n"))
        .contains("t.txt:2:").contains("not a JSON object");
  }

  private String error(String content) throws IOException {
    Path f = dir.resolve("t.txt");
    Files.writeString(f, content);
    try {
      Trace.read(f, null, 512);
    } catch (WorkloadException e) {
      assertThat(e.getMessage()).doesNotContain("\n");
      return e.getMessage();
    }
    throw new AssertionError("no error for " + content);
  }

  @Test
  void windowSpeedAndScale() {
    List<Trace.Record> rs = new java.util.ArrayList<>();
    for (int i = 0; i < 1000; i++) {
      rs.add(new Trace.Record(i * 1_000_000_000L, 10, 5, new long[0], "s" + (i % 100), i / 100 + 1, i + 1));
    }
    Trace t = Trace.of(TraceFormat.TOKENMETER, 512, rs);
    Trace w = t.window(600_000_000_000L, 720_000_000_000L);
    assertThat(w.records()).hasSize(120);
    assertThat(w.offsetsNanos()[0]).isZero();
    assertThat(w.records().get(0).line()).isEqualTo(601);
    assertThat(t.speed(2).offsetsNanos()[999]).isEqualTo(499_500_000_000L);
    Trace half = t.scale(0.5, 42);
    // Whole sessions: every kept session keeps its 10 turns.
    assertThat(half.records().size() % 10).isZero();
    assertThat(half.records().size()).isBetween(300, 700);
    assertThat(half.records()).allSatisfy(r -> assertThat(
        half.records().stream().filter(o -> o.session().equals(r.session())).count()).isEqualTo(10));
    assertThat(t.scale(0.5, 42).offsetsNanos()).isEqualTo(half.offsetsNanos()); // seeded
    assertThat(t.scale(0.5, 43).offsetsNanos()).isNotEqualTo(half.offsetsNanos());
    assertThatThrownBy(() -> t.scale(0, 1)).hasMessageContaining("--trace-scale");
    assertThatThrownBy(() -> t.speed(-1)).hasMessageContaining("--trace-speed");
  }

  @Test
  void formatNamesParse() {
    assertThat(TraceFormat.parse("Mooncake")).isEqualTo(TraceFormat.MOONCAKE);
    assertThat(TraceFormat.parse("bailian")).isEqualTo(TraceFormat.BAILIAN);
    assertThatThrownBy(() -> TraceFormat.parse("sharegpt")).hasMessageContaining("not a trace format")
        .hasMessageContaining("mooncake, bailian, burstgpt, azure or tokenmeter");
  }
}

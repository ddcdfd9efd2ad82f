package dev.tokenmeter.report;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Merging summary.json trees: the rules of docs/RESULTS.md, on a measured two-stage sample. */
class SummaryMergerTest {
  private static final ObjectMapper JSON = new ObjectMapper();

  @Test
  void aRunMergedWithItselfKeepsItsDistributionsAndDoublesItsCounts() throws Exception {
    JsonNode run = JSON.readTree(SummaryJsonWriter.toJson(SampleRun.summary()));
    SummaryMerger.Result r = SummaryMerger.merge(parts(run, run.deepCopy()), List.of("tokenmeter", "merge"), false);
    JsonNode m = r.summary();
    assertThat(r.warnings()).isEmpty();
    assertThat(JsonSchemaSubset.check(JSON.readTree(Path.of("docs/summary.schema.json").toFile()), m)).isEmpty();
    for (int s = 0; s < 2; s++) {
      JsonNode one = run.get("stages").get(s);
      JsonNode two = m.get("stages").get(s);
      for (String metric : new String[] {"ttft_ms", "tpot_ms", "itl_ms", "e2e_ms", "decode_tps"}) {
        JsonNode a = one.at("/metrics/" + metric);
        JsonNode b = two.at("/metrics/" + metric);
        assertThat(b.get("count").asLong()).isEqualTo(2 * a.get("count").asLong());
        for (String f : new String[] {"min", "p50", "p99", "max"}) {
          assertThat(b.get(f)).as(metric + " " + f).isEqualTo(a.get(f));
        }
      }
      assertThat(two.at("/requests/completed").asLong()).isEqualTo(2 * one.at("/requests/completed").asLong());
      assertThat(two.at("/errors")).hasSize(one.at("/errors").size());
      // Ratios and means of a run merged with itself are its own; counts double.
      assertThat(two.at("/tokens/output_words").asLong()).isEqualTo(2 * one.at("/tokens/output_words").asLong());
      assertThat(two.at("/tokens/words_per_output_token").asDouble())
          .isCloseTo(one.at("/tokens/words_per_output_token").asDouble(), org.assertj.core.data.Offset.offset(1e-12));
      assertThat(two.at("/tokens/prompt_overhead").toString()).isEqualTo(
          ((ObjectNode) one.at("/tokens/prompt_overhead").deepCopy())
              .put("count", 2 * one.at("/tokens/prompt_overhead/count").asLong())
              .put("estimated_count", 2 * one.at("/tokens/prompt_overhead/estimated_count").asLong()).toString());
    }
    assertThat(m.at("/stages/0/client_health/event_loops").asInt()).isEqualTo(2 * run.at("/stages/0/client_health/event_loops").asInt());
    assertThat(m.get("sweep").isNull()).isTrue();
    assertThat(m.at("/stages/0/label").asText()).isEqualTo("c=" + 2 * run.at("/stages/0/load/concurrency").asInt());
    double rate = run.at("/stages/1/load/rate_per_s").asDouble();
    assertThat(m.at("/stages/1/load/rate_per_s").asDouble()).isEqualTo(2 * rate);
    assertThat(m.at("/stages/1/label").asText())
        .startsWith("rate=" + (long) (2 * rate) + "/s")
        .endsWith(run.at("/stages/1/label").asText().replaceFirst("^rate=[^/]*/s", ""));
    assertThat(m.get("partial").asBoolean()).isTrue(); // the sample was interrupted
    assertThat(m.get("partial_detail").asText()).startsWith("part 0: Ctrl-C");
  }

  @Test
  void aPartWrittenBeforeSchema15CountsAsOneEventLoop() throws Exception {
    JsonNode run = JSON.readTree(SummaryJsonWriter.toJson(SampleRun.summary()));
    JsonNode old = run.deepCopy();
    for (JsonNode stage : old.get("stages")) {
      ((ObjectNode) stage.get("client_health")).remove("event_loops");
    }
    ((ObjectNode) run.at("/stages/0/client_health")).put("event_loops", 3);
    JsonNode m = SummaryMerger.merge(parts(run, old), List.of("tokenmeter", "merge"), false).summary();
    assertThat(m.at("/stages/0/client_health/event_loops").asInt()).isEqualTo(4);
  }

  @Test
  void mergedDistributionsAndHistogramsHaveTheWritersFieldsInItsOrder() throws Exception {
    JsonNode run = JSON.readTree(SummaryJsonWriter.toJson(SampleRun.summary()));
    JsonNode m = SummaryMerger.merge(parts(run, run.deepCopy()), List.of("tokenmeter", "merge"), false).summary();
    for (int s = 0; s < 2; s++) {
      JsonNode one = run.get("stages").get(s);
      JsonNode two = m.get("stages").get(s);
      for (String section : new String[] {"metrics", "histograms"}) {
        assertThat(names(two.get(section))).as(section).isEqualTo(names(one.get(section)));
        for (String metric : names(one.get(section))) {
          assertThat(names(two.get(section).get(metric))).as(section + " " + metric)
              .isEqualTo(names(one.get(section).get(metric)));
        }
      }
      assertThat(names(two.at("/client_health/send_lag_ms"))).isEqualTo(names(one.at("/client_health/send_lag_ms")));
      // The same histograms twice: the merged one has twice the count, in the writer's encoding.
      JsonNode h = one.at("/histograms/ttft");
      assertThat(two.at("/histograms/ttft/encoding")).isEqualTo(h.get("encoding"));
      assertThat(two.at("/histograms/ttft/count").asLong()).isEqualTo(2 * h.get("count").asLong());
    }
  }

  private static List<String> names(JsonNode n) {
    List<String> out = new java.util.ArrayList<>();
    n.fieldNames().forEachRemaining(out::add);
    return out;
  }

  @Test
  void windowsThatDoNotOverlapAreReported() throws Exception {
    JsonNode run = JSON.readTree(SummaryJsonWriter.toJson(SampleRun.summary()));
    ObjectNode late = run.deepCopy();
    late.put("started_at", "2025-03-01T11:00:00Z"); // an hour after part 0
    SummaryMerger.Result r = SummaryMerger.merge(parts(run, late), List.of(), false);
    assertThat(r.warnings()).anySatisfy(w -> assertThat(w)
        .startsWith("stage c=").contains("overlap for 0.0 s").contains("did not run at the same time"));
    ObjectNode slightlyLate = run.deepCopy();
    slightlyLate.put("started_at", "2025-03-01T10:00:00.050Z"); // 50 ms
    assertThat(SummaryMerger.merge(parts(run, slightlyLate), List.of(), false).warnings()).isEmpty();
  }

  @Test
  void differentPlansAreNamed() throws Exception {
    JsonNode run = JSON.readTree(SummaryJsonWriter.toJson(SampleRun.summary()));
    ObjectNode other = run.deepCopy();
    ((ObjectNode) other.get("target")).put("model", "qwen3-8b");
    ((ObjectNode) other.get("stages").get(0)).put("label", "c=99");
    assertThatThrownBy(() -> SummaryMerger.merge(parts(run, other), List.of(), false))
        .isInstanceOf(SummaryMerger.PlanMismatchException.class)
        .hasMessageContaining("part 1 has target/model \"qwen3-8b\", part 0 \"llama-3.1-8b\"")
        .hasMessageContaining("stage 0 of part 1 is c=99");
    assertThat(SummaryMerger.merge(parts(run, other), List.of(), true).warnings()).hasSize(2);
  }

  private static List<SummaryMerger.Part> parts(JsonNode... summaries) {
    return java.util.stream.IntStream.range(0, summaries.length)
        .mapToObj(i -> new SummaryMerger.Part(Path.of("part" + i), summaries[i])).toList();
  }
}

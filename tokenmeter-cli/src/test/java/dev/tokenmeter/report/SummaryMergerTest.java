package dev.tokenmeter.report;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.tokenmeter.core.analysis.Completions;
import dev.tokenmeter.core.analysis.Sessions;
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

  @Test
  void sessionsAndCompletionFiguresAreMergedFromTheirHistograms() throws Exception {
    JsonNode run = JSON.readTree(SummaryJsonWriter.toJson(SampleRun.summary()));
    JsonNode a = withConversations(run, sessions(100, 4, 0), completions(20, 5, Completions.ServerStop.STOPPED));
    JsonNode b = withConversations(run, sessions(300, 6, 3),
        completions(10, 2, Completions.ServerStop.NOT_KNOWN));
    SummaryMerger.Result r = SummaryMerger.merge(parts(a, b), List.of("tokenmeter", "merge"), false);
    assertThat(r.warnings()).isEmpty();
    assertThat(JsonSchemaSubset.check(JSON.readTree(Path.of("docs/summary.schema.json").toFile()), r.summary())).isEmpty();
    JsonNode s = r.summary().at("/stages/0/sessions");
    assertThat(s.get("started").asLong()).isEqualTo(4 + 6);
    assertThat(s.get("ended_by_error").asLong()).isEqualTo(3);
    JsonNode byTurn = s.get("by_turn");
    assertThat(byTurn).hasSize(3); // turns 1 and 2 from both parts, "later" from b only
    assertThat(byTurn.get(0).get("requests").asLong()).isEqualTo(4 + 6);
    // p50 of the union: 4 requests at 100 ms and 6 at 300 ms
    assertThat(byTurn.get(0).at("/ttft_ms/p50").asDouble()).isCloseTo(300, org.assertj.core.data.Offset.offset(0.5));
    assertThat(byTurn.get(1).get("cached_share").asDouble()).isEqualTo((4 * 50 + 6 * 50) / (4 * 400.0 + 6 * 400.0));
    assertThat(byTurn.get(2).get("turn").asText()).isEqualTo("later");
    assertThat(s.at("/turns/count").asLong()).isEqualTo(10);
    assertThat(s.at("/agent/tool_calls").asLong()).isEqualTo(6); // only b ran agents
    assertThat(s.at("/agent/calls").asLong()).isEqualTo(7);
    assertThat(s.get("in_words").asText()).contains("TTFT p50");
    JsonNode c = r.summary().at("/stages/0/completion");
    assertThat(c.get("requests_sent").asLong()).isEqualTo(30);
    assertThat(c.get("superseded").asLong()).isEqualTo(7);
    assertThat(c.at("/ttft_completed_ms/count").asLong()).isEqualTo(30 - 7);
    assertThat(c.get("server_stops_on_cancel").asText()).isEqualTo("not_known"); // one part could not tell
    assertThat(r.summary().at("/stages/1").has("sessions")).isFalse();

    ObjectNode old = (ObjectNode) a.deepCopy();
    ((ObjectNode) old.at("/stages/0/sessions")).remove("histograms");
    SummaryMerger.Result mixed = SummaryMerger.merge(parts(old, b), List.of(), false);
    assertThat(mixed.summary().at("/stages/0").has("sessions")).isFalse();
    assertThat(mixed.warnings()).singleElement().asString().contains("written before schema 1.11");
  }

  private static Sessions sessions(long ttftMs, int n, int errors) {
    List<Sessions.ByTurn> byTurn = new java.util.ArrayList<>();
    for (int turn : errors > 0 ? new int[] {1, 2, 9} : new int[] {1, 2}) {
      byTurn.add(new Sessions.ByTurn(turn, hist(ttftMs * 1_000_000, n), hist(ttftMs * 1_000_000, n),
          hist(20_000_000, n), hist(400L * turn, n), 400L * n, 50L * n));
    }
    return new Sessions(n, n - errors, errors, 0, 0, hist(5_000_000_000L, n), hist(2, n), hist(900, n), hist(90, n),
        byTurn, errors > 0 ? new Sessions.Agent(n, n, n / 2, n + 1) : null);
  }

  private static Completions completions(int sent, int superseded, Completions.ServerStop stop) {
    return new Completions(sent, sent - superseded, superseded, 0, 0, 0, hist(40_000_000, sent - superseded), stop);
  }

  private static org.HdrHistogram.Histogram hist(long value, int n) {
    org.HdrHistogram.Histogram h = new org.HdrHistogram.Histogram(3);
    h.recordValueWithCount(value, n);
    return h;
  }

  /** {@code run} with stage 0 carrying {@code s} and {@code c}, as the stage writer writes them. */
  private static JsonNode withConversations(JsonNode run, Sessions s, Completions c) throws Exception {
    java.io.StringWriter w = new java.io.StringWriter();
    try (com.fasterxml.jackson.core.JsonGenerator g = JSON.createGenerator(w)) {
      g.writeStartObject();
      SessionsJsonWriter.write(g, s);
      CompletionJsonWriter.write(g, c);
      g.writeEndObject();
    }
    ObjectNode copy = run.deepCopy();
    ((ObjectNode) copy.at("/stages/0")).setAll((ObjectNode) JSON.readTree(w.toString()));
    return copy;
  }

  private static List<SummaryMerger.Part> parts(JsonNode... summaries) {
    return java.util.stream.IntStream.range(0, summaries.length)
        .mapToObj(i -> new SummaryMerger.Part(Path.of("part" + i), summaries[i])).toList();
  }
}

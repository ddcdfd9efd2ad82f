package dev.tokenmeter.report;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.tokenmeter.core.analysis.Metric;
import dev.tokenmeter.core.analysis.Sessions;
import dev.tokenmeter.core.analysis.StageResult;
import dev.tokenmeter.core.load.Arrivals;
import dev.tokenmeter.core.load.LoadModel;
import dev.tokenmeter.core.load.StagePlan;
import dev.tokenmeter.core.load.StopCondition;
import dev.tokenmeter.core.request.ErrorClass;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.OptionalInt;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** A dead run's summary rebuilt from requests.jsonl: counts and distributions exact, the rest marked. */
class RecoveryTest {
  private static final ObjectMapper MAPPER = new ObjectMapper();
  private static final long MS = 1_000_000L;
  private static final long S = 1_000 * MS;

  @TempDir Path tmp;

  /** Stage 2 (index 1) of a run, c=2, 1 s warm-up, 4 s window; it started 10 s into the run. */
  private static final StagePlanJson.Running RUNNING = new StagePlanJson.Running(
      new StagePlan(1, new LoadModel.Closed(2, 0), new StopCondition.Duration(4 * S), S, S, 7), "c=2", 10 * S);

  private static String line(long id, String phase, boolean ok, String error, double sentMs, double ttftMs,
      double e2eMs, int tokens) {
    double tpot = tokens > 1 ? (e2eMs - ttftMs) / (tokens - 1) : Double.NaN;
    return "{\"id\":" + id + ",\"stage\":1,\"phase\":\"" + phase + "\",\"scheduled_at_ms\":" + sentMs
        + ",\"sent_at_ms\":" + sentMs + ",\"ok\":" + ok + (error == null ? "" : ",\"error_class\":\"" + error + "\"")
        + (ttftMs < 0 ? "" : ",\"ttft_ms\":" + ttftMs) + ",\"e2e_ms\":" + e2eMs
        + (Double.isNaN(tpot) ? "" : ",\"tpot_ms\":" + tpot + ",\"decode_tps\":" + 1000 / tpot)
        + ",\"output_tokens\":" + tokens + ",\"output_tokens_source\":\"usage\",\"output_words\":" + tokens
        + ",\"input_tokens\":100,\"reasoning_chars\":0}\n";
  }

  private Path jsonl(String... lines) throws Exception {
    Path f = tmp.resolve("requests.jsonl");
    Files.writeString(f, String.join("", lines), StandardCharsets.UTF_8);
    return f;
  }

  /** 1 warm-up, 3 measured ok (TTFT 100/200/300 ms), one 429, and a line cut short by the kill. */
  private RequestsJsonlReader.Lines sample() throws Exception {
    return RequestsJsonlReader.read(jsonl(
        line(0, "warmup", true, null, 10_100, 50, 500, 10),
        line(1, "measured", true, null, 11_500, 100, 1_000, 10),
        line(2, "measured", true, null, 12_000, 200, 1_100, 10),
        line(3, "measured", false, "http_429", 12_500, -1, 5, 0),
        line(4, "measured", true, null, 13_000, 300, 1_200, 10),
        "{\"id\":5,\"stage\":1,\"phase\":\"meas"));
  }

  @Test
  void readerKeepsCompleteLinesAndCountsTheCutShortOne() throws Exception {
    RequestsJsonlReader.Lines lines = sample();
    assertThat(lines.requests()).extracting(SavedRequest::id).containsExactly(0L, 1L, 2L, 3L, 4L);
    assertThat(lines.tornLines()).isEqualTo(1);
    SavedRequest r = lines.requests().get(1);
    assertThat(r.firstTokenNanos()).isEqualTo(11_600 * MS);
    assertThat(r.endNanos()).isEqualTo(12_500 * MS);
    assertThat(r.lastTokenNanos()).isEqualTo(12_500 * MS);
    assertThat(lines.requests().get(3).errorClass()).isEqualTo(ErrorClass.HTTP_429);
  }

  @Test
  void rebuiltStageCountsEveryFinishedRequestOnce() throws Exception {
    List<SavedRequest> lines = sample().requests();
    StageResult r = RecoveredStage.build(RUNNING, lines);
    assertThat(r.requests().completed()).isEqualTo(3);
    assertThat(r.requests().failed()).isEqualTo(1);
    assertThat(r.errors()).containsExactly(java.util.Map.entry(ErrorClass.HTTP_429, 1L));
    assertThat(r.metric(Metric.TTFT).count()).isEqualTo(3);
    assertThat(r.metric(Metric.TTFT).p50()).isBetween(199.0, 201.0);
    assertThat(r.metric(Metric.ITL).count()).isZero();
    // The window opened 1 s after the stage start (11 s) and the last request ended at 14.2 s.
    assertThat(r.window().startOffsetNanos()).isEqualTo(S);
    assertThat(r.window().endOffsetNanos()).isEqualTo(4_200 * MS);
    assertThat(r.window().complete()).isFalse();
    assertThat(r.throughput().windowInputTokens()).isEqualTo(300);
    // Request 0 (warm-up) sent its tokens 10.15-10.6 s, before the window: none of them count.
    assertThat(r.throughput().windowOutputTokens()).isEqualTo(30);
    assertThat(r.timeSeries().seconds()).isEqualTo(5);
    long ended = 0;
    for (int s = 0; s < r.timeSeries().seconds(); s++) {
      ended += r.timeSeries().completed(s) + r.timeSeries().failed(s);
    }
    assertThat(ended).isEqualTo(5);
    assertThat(r.steadyState().reason()).startsWith("not assessed");
    assertThat(r.finishes().answers()).as("the measured answers; these lines name no finish reason").isEqualTo(3);
    assertThat(r.finishes().byClass()).containsEntry(dev.tokenmeter.core.request.FinishClass.OTHER, 3L);
  }

  @Test
  void sessionsAreRebuiltByTurnFromTheirLines() throws Exception {
    // session 7: turns 1 and 2 answered; session 8: turn 1 answered, turn 2 failed; lines without a session: none
    List<SavedRequest> lines = RequestsJsonlReader.read(jsonl(
        turn(line(1, "measured", true, null, 11_500, 100, 1_000, 10), 7, 1, 0),
        turn(line(2, "measured", true, null, 12_000, 200, 1_100, 10), 8, 1, 0),
        turn(line(3, "measured", true, null, 12_500, 300, 1_200, 10), 7, 2, 80),
        turn(line(4, "measured", false, "http_5xx", 13_000, -1, 5, 0), 8, 2, -1),
        line(5, "measured", true, null, 13_100, 900, 1_200, 10))).requests();
    Sessions s = RecoveredStage.build(RUNNING, lines).sessions();
    assertThat(s.started()).isEqualTo(2);
    assertThat(s.endedByError()).isEqualTo(1);
    assertThat(s.inProgressAtEnd()).isEqualTo(1);
    assertThat(s.finished()).isZero();
    assertThat(s.byTurn()).extracting(Sessions.ByTurn::firstTurn).containsExactly(1, 2);
    assertThat(s.byTurn().get(0).requests()).isEqualTo(2);
    assertThat(s.byTurn().get(0).ttft().getValueAtPercentile(100)).isBetween(199 * MS, 201 * MS);
    assertThat(s.byTurn().get(1).requests()).isEqualTo(1);
    assertThat(s.byTurn().get(1).cachedShare()).isEqualTo(80 / 100.0);
    assertThat(s.byTurn().get(0).cachedShare()).isZero();
    assertThat(RecoveredStage.build(RUNNING, sample().requests()).sessions()).as("no session named").isNull();
  }

  /** {@code line} with a session, turn and (when >= 0) reported cached tokens. */
  private static String turn(String line, long session, int turn, int cached) {
    return line.replace("}\n", ",\"session\":" + session + ",\"turn\":" + turn
        + (cached >= 0 ? ",\"usage_cached_tokens\":" + cached : "") + "}\n");
  }

  @Test
  void tokensAreSpreadFromTheFirstToTheLastToken() throws Exception {
    SavedRequest r = SavedRequest.of(MAPPER.readTree(line(9, "measured", true, null, 0, 1_000, 2_000, 5)));
    assertThat(RecoveredStage.tokensIn(r, 0, Long.MAX_VALUE)).isEqualTo(5);
    // The first token at 1 s falls before 1.5 s; the other 4 are spread over (1 s, 2 s]: half after.
    assertThat(RecoveredStage.tokensIn(r, 1_500 * MS, Long.MAX_VALUE)).isEqualTo(2);
    assertThat(RecoveredStage.tokensIn(r, 0, 1_500 * MS)).isEqualTo(3);
    assertThat(RecoveredStage.tokensIn(r, 3 * S, 4 * S)).isZero();
  }

  @Test
  void recoveredSummaryIsMarkedAndMatchesTheSchema() throws Exception {
    ObjectNode before = (ObjectNode) MAPPER.readTree(SummaryJsonWriter.toJson(SampleRun.summary()));
    before.put("partial", true).put("partial_reason", "error").put("partial_detail", "run in progress");
    JsonNode schema = MAPPER.readTree(Path.of("docs/summary.schema.json").toFile());
    int done = before.get("stages").size();
    StagePlanJson.Running running = new StagePlanJson.Running(
        new StagePlan(done, RUNNING.plan().load(), RUNNING.plan().stop(), S, S, 7), "c=2", 10 * S);
    Recovery.Result r = Recovery.recover(before, running, sample());
    assertThat(r.rebuiltStage()).isEqualTo(done);
    assertThat(r.tornLines()).isEqualTo(1);
    JsonNode after = r.summary();
    assertThat(JsonSchemaSubset.check(schema, after)).isEmpty();
    assertThat(after.get("partial_reason").asText()).isEqualTo("recovered");
    assertThat(after.at("/recovered/rebuilt_stage").asInt()).isEqualTo(done);
    assertThat(after.at("/recovered/previous_detail").asText()).isEqualTo("run in progress");
    assertThat(after.get("stages").size()).isEqualTo(done + 1);
    // Stage lines belong to stage index 1 in the sample; the rebuilt stage has done's index.
    assertThat(after.at("/stages/" + done + "/index").asInt()).isEqualTo(done);
  }

  @Test
  void aFinishedRunIsNotRecovered() throws Exception {
    ObjectNode finished = (ObjectNode) MAPPER.readTree(SummaryJsonWriter.toJson(SampleRun.summary()));
    finished.put("partial", false).putNull("partial_reason");
    assertThatThrownBy(() -> Recovery.recover(finished, null, sample()))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("nothing to recover");
  }

  @Test
  void stagePlanRoundTrips() throws Exception {
    StagePlan open = new StagePlan(3, new LoadModel.Open(2.5, new Arrivals.Gamma(0.5), OptionalInt.of(8)),
        new StopCondition.Requests(40), 2 * S, 0, 11, 50);
    StagePlanJson.write(tmp, new StagePlanJson.Running(open, "r=2.5", 1_234 * MS));
    StagePlanJson.Running back = StagePlanJson.read(tmp.resolve(StagePlanJson.FILE_NAME));
    assertThat(back.plan()).isEqualTo(open);
    assertThat(back.label()).isEqualTo("r=2.5");
    assertThat(back.stageStartNanos()).isEqualTo(1_234 * MS);
    StagePlanJson.write(tmp, RUNNING);
    assertThat(StagePlanJson.read(tmp.resolve(StagePlanJson.FILE_NAME))).isEqualTo(RUNNING);
  }
}

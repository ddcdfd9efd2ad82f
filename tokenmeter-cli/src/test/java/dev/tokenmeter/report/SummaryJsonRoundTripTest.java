package dev.tokenmeter.report;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIOException;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.tokenmeter.core.analysis.ClientCpu;
import dev.tokenmeter.core.analysis.Distribution;
import dev.tokenmeter.core.analysis.Metric;
import dev.tokenmeter.core.analysis.StageResult;
import dev.tokenmeter.core.load.LoadModel;
import dev.tokenmeter.core.load.StagePlan;
import dev.tokenmeter.core.load.StopCondition;
import dev.tokenmeter.core.metrics.StageRecorder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import org.HdrHistogram.Histogram;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class SummaryJsonRoundTripTest {

  @Test
  void anOldFoldersCancellationsAreReadAsNoFailures(@TempDir Path dir) throws Exception {
    // Before issue 43 a stage counted the tool's own cancellations (Ctrl-C) as failures.
    Path file = dir.resolve("summary.json");
    SummaryJsonWriter.write(SampleRun.summary(), file);
    ObjectMapper json = new ObjectMapper();
    var root = (com.fasterxml.jackson.databind.node.ObjectNode) json.readTree(file.toFile());
    var stage = (com.fasterxml.jackson.databind.node.ObjectNode) root.get("stages").get(0);
    long failed = stage.get("requests").get("failed").asLong();
    ((com.fasterxml.jackson.databind.node.ObjectNode) stage.get("requests")).put("failed", failed + 4);
    ((com.fasterxml.jackson.databind.node.ObjectNode) stage.get("errors")).put("cancelled", 4);
    json.writeValue(file.toFile(), root);

    SavedSummary.Stage back = SummaryJsonReader.read(file).stages().get(0);

    assertThat(back.failed()).isEqualTo(failed);
    assertThat(back.errors()).doesNotContainKey("cancelled");
  }

  @Test
  void writtenSummaryReadsBackWithItsHistogramsAndHeadlines(@TempDir Path dir) throws Exception {
    RunSummary run = SampleRun.summary();
    Path file = dir.resolve("summary.json");
    SummaryJsonWriter.write(run, file);
    SavedSummary saved = SummaryJsonReader.read(file);

    assertThat(saved.schemaVersion()).isEqualTo(RunSummary.SCHEMA_VERSION);
    assertThat(saved.toolName()).isEqualTo("tokenmeter");
    assertThat(saved.startedAt()).isEqualTo(Instant.parse("2025-03-01T10:00:00Z"));
    assertThat(saved.endedAt()).isEqualTo(Instant.parse("2025-03-01T10:00:17.250Z"));
    assertThat(saved.partial()).isTrue();
    assertThat(saved.partialReason()).isEqualTo("interrupted");
    assertThat(saved.model()).isEqualTo("llama-3.1-8b");
    assertThat(saved.stages()).hasSize(2);

    for (int i = 0; i < 2; i++) {
      StageResult stage = run.stages().get(i);
      SavedSummary.Stage back = saved.stages().get(i);
      assertThat(back.label()).isEqualTo(stage.label());
      assertThat(back.completed()).isEqualTo(stage.requests().completed());
      assertThat(back.failed()).isEqualTo(stage.requests().failed());
      assertThat(back.outputTokensPerSecond())
          .isEqualTo(stage.throughput().outputTokensPerSecond());
      assertThat(back.requestsPerSecond()).isEqualTo(stage.throughput().requestsPerSecond());
      assertThat(back.achievedConcurrency()).isEqualTo(stage.throughput().achievedConcurrency());
      stage.errors().forEach((c, n) -> assertThat(back.errors()).containsEntry(c.wireName(), n));
      assertThat(back.errors()).hasSameSizeAs(stage.errors());
      for (Metric m : new Metric[] {Metric.TTFT, Metric.TPOT, Metric.ITL, Metric.E2E}) {
        assertThat(back.metrics().get(m.reportKey())).as(m.name()).isEqualTo(stage.metric(m));
      }
      for (Map.Entry<Metric, Histogram> e : stage.histograms().entrySet()) {
        assertThat(back.histograms().get(e.getKey())).as(e.getKey().name()).isEqualTo(e.getValue());
      }
    }
    // The sample is not trivial: requests, failures, ITL values.
    StageResult first = run.stages().get(0);
    assertThat(first.requests().completed()).isGreaterThan(20);
    assertThat(first.requests().failed()).isGreaterThan(0);
    assertThat(first.histograms().get(Metric.ITL).getTotalCount()).isGreaterThan(500);
  }

  @Test
  void emptyDistributionsAndUndefinedRatesAreNullInJsonAndNaNWhenRead() throws Exception {
    // A stage stopped before its window opened: no request, no window, nothing to divide by.
    StageRecorder recorder = new StageRecorder(
        new StagePlan(0, new LoadModel.Closed(1, 0), new StopCondition.Requests(10), 0, 0, 1, 25), 0);
    StageResult empty = recorder.finish(500_000_000L, ClientCpu.UNKNOWN);
    RunSummary base = SampleRun.summary();
    RunSummary run = new RunSummary(base.tool(), base.startedAt(), base.endedAt(), base.target(),
        base.commandLine(), base.seed(), base.settings(), RunSummary.Completion.error("boom"),
        List.of(empty));
    String text = SummaryJsonWriter.toJson(run);
    JsonNode root = new ObjectMapper().readTree(text);
    JsonNode stage = root.at("/stages/0");
    assertThat(stage.at("/metrics/ttft_ms/count").asLong()).isZero();
    assertThat(stage.at("/metrics/ttft_ms/p50").isNull()).isTrue();
    assertThat(stage.at("/throughput/output_tokens_per_s").isNull()).isTrue();
    assertThat(stage.at("/window/start_s").isNull()).isTrue();
    assertThat(stage.at("/max_requests").asLong()).as("--max-requests in the plan").isEqualTo(25);
    assertThat(stage.at("/steady_state/failed_check").asText()).isEqualTo("too_short");
    assertThat(root.at("/partial_reason").asText()).isEqualTo("error");
    assertThat(root.at("/settings/timeouts/total_ms").isNull()).isTrue();
    assertThat(root.at("/settings/timeouts/first_token_ms").asDouble()).isEqualTo(30_000.0);
    JsonNode schema = new ObjectMapper().readTree(Path.of("docs/summary.schema.json").toFile());
    assertThat(JsonSchemaSubset.check(schema, root)).isEmpty();

    SavedSummary.Stage back = SummaryJsonReader.read(text).stages().get(0);
    assertThat(back.metrics().get("ttft_ms")).isEqualTo(Distribution.EMPTY);
    assertThat(back.outputTokensPerSecond()).isNaN();
    assertThat(back.histograms().get(Metric.TTFT).getTotalCount()).isZero();
  }

  @Test
  void openLoopPlanAndInterruptedWindowAreWritten() throws Exception {
    JsonNode open =
        new ObjectMapper().readTree(SummaryJsonWriter.toJson(SampleRun.summary())).at("/stages/1");
    assertThat(open.at("/load/model").asText()).isEqualTo("open");
    assertThat(open.at("/load/burstiness").asDouble()).isEqualTo(0.5);
    assertThat(open.at("/load/max_concurrency").asInt()).isEqualTo(8);
    assertThat(open.at("/load/concurrency").isNull()).isTrue();
    assertThat(open.at("/stop/requests").asLong()).isEqualTo(100);
    assertThat(open.at("/max_requests").isNull()).as("no --max-requests").isTrue();
    assertThat(open.at("/window/complete").asBoolean()).isFalse();
    assertThat(open.at("/time_series/phases").size()).isEqualTo(1); // measured only
  }

  @Test
  void headlinePathsScriptsRelyOnArePresent() throws Exception {
    JsonNode root = new ObjectMapper().readTree(SummaryJsonWriter.toJson(SampleRun.summary()));
    JsonNode stage = root.get("stages").get(0);
    for (String metric : new String[] {"ttft_ms", "tpot_ms", "itl_ms", "e2e_ms"}) {
      for (String stat : new String[] {"mean", "p50", "p90", "p95", "p99", "p999", "max"}) {
        assertThat(stage.at("/metrics/" + metric + "/" + stat).isNumber())
            .as(metric + "." + stat).isTrue();
      }
    }
    for (String t : new String[] {"output_tokens_per_s", "input_tokens_per_s", "requests_per_s"}) {
      assertThat(stage.at("/throughput/" + t).isNumber()).as(t).isTrue();
    }
    assertThat(stage.at("/requests/completed").isIntegralNumber()).isTrue();
    assertThat(stage.at("/requests/failed").isIntegralNumber()).isTrue();
    assertThat(stage.at("/errors").isObject()).isTrue();
    assertThat(stage.at("/errors/http_429").asLong()).isPositive();
    assertThat(stage.at("/histograms/ttft/unit").asText()).isEqualTo("ns");
    assertThat(stage.at("/histograms/decode_tps/unit").asText()).isEqualTo("milli_tokens_per_s");
  }

  @Test
  void otherMajorVersionsAreRefused() {
    assertThatIOException()
        .isThrownBy(() -> SummaryJsonReader.read("{\"schema_version\": \"2.0\"}"))
        .withMessageContaining("2.0");
  }

  @Test
  void writingIsDeterministic(@TempDir Path dir) throws Exception {
    String once = SummaryJsonWriter.toJson(SampleRun.summary());
    String twice = SummaryJsonWriter.toJson(SampleRun.summary());
    assertThat(once).isEqualTo(twice);
    Files.writeString(dir.resolve("x.json"), once);
    assertThat(once).startsWith("{\n  \"schema_version\": \"" + RunSummary.SCHEMA_VERSION + "\",");
  }
}

package dev.tokenmeter.it;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.tokenmeter.core.time.Ticker;
import dev.tokenmeter.simulator.EngineTiming;
import dev.tokenmeter.simulator.SimServer;
import dev.tokenmeter.simulator.engine.EngineConfig;
import dev.tokenmeter.simulator.engine.Presets;
import dev.tokenmeter.testkit.Cli;
import dev.tokenmeter.testkit.PrometheusServer;
import dev.tokenmeter.testkit.SimFixture;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * {@code bench --server-metrics} against the engine-backed simulator, whose {@code /metrics} serves
 * vLLM V1's names computed from its engine: under a load that queues (8 users, 2 sequences at most
 * in the batch) the words say how much of the client's TTFT p50 was queueing in the server, and that
 * share matches the simulator's exact queue times within the precision of vLLM's buckets.
 *
 * <p>Numbers: Llama 3.1 8B on one H100, 40 output tokens: an iteration of 2 sequences takes about
 * 10 ms, so a request holds its slot about 0.4 s and, 8 users sharing 2 slots, waits about 3 such
 * turns (≈ 1.2 s) in the queue before it is scheduled.
 */
@Timeout(90)
class ServerMetricsIT {
  private static final ObjectMapper JSON = new ObjectMapper();
  /** vLLM's request_latency_buckets (vllm/v1/metrics/loggers.py), seconds. */
  private static final double[] REQUEST_BUCKETS = {0.3, 0.5, 0.8, 1.0, 1.5, 2.0, 2.5, 5.0, 10.0};
  private static final Pattern WORDS = Pattern.compile(
      "Of (\\d+) ms TTFT p50, (\\d+) ms were queueing in the server \\(vLLM queue time\\), (\\d+(?:\\.\\d)?) ms"
          + " prefill, (-?\\d+(?:\\.\\d)?) ms network and client\\.");

  @TempDir Path tmp;

  @Test
  void theQueueTimeShareInTheWordsIsTheSimulatorsWithinABucket() throws Exception {
    EngineTiming timing = new EngineTiming(
        EngineConfig.of(Presets.model("llama-3.1-8b"), Presets.gpu("h100-sxm")).withLimits(2, 8192), Ticker.system());
    Path out = tmp.resolve("run");
    Cli.Result r;
    SimServer.PhaseTruth truth;
    byte[] exposition;
    try (SimFixture sim = SimFixture.start(SimFixture.config(0, 0).timing(timing).maxModelLen(timing.maxModelLen()))) {
      r = Cli.run("bench", "--url", sim.baseUrl(), "--concurrency", "8", "--duration", "5s", "--warmup", "2s",
          "--cooldown", "0s", "--input-tokens", "64", "--output-tokens", "40", "--extra-body", "{\"ignore_eos\":true}",
          "--server-metrics", "--server-metrics-interval", "250ms", "--out", out.toString());
      truth = sim.server().phaseTruth();
      exposition = get(sim.baseUrl() + "/metrics");
    }
    assertThat(r.exitCode()).as(r.both()).isZero();
    JsonNode summary = JSON.readTree(out.resolve("summary.json").toFile());
    assertThat(summary.get("schema_version").asText()).isEqualTo(dev.tokenmeter.report.RunSummary.SCHEMA_VERSION);
    JsonNode stage = summary.get("stages").get(0);
    JsonNode server = stage.get("server");
    assertThat(server.get("server").asText()).isEqualTo("vllm");
    assertThat(server.get("window_scrapes").asInt()).as(server.toString()).isGreaterThanOrEqualTo(10);
    assertThat(server.at("/gauges/running/max").asDouble()).isEqualTo(2);
    assertThat(server.at("/gauges/waiting/mean").asDouble()).as("8 users, 2 slots").isBetween(4.0, 6.5);
    assertThat(server.at("/gauges/kv_cache_usage/max").asDouble()).isBetween(1e-6, 0.5);
    assertThat(server.at("/totals/preemptions").asDouble()).isZero();
    assertThat(server.at("/totals/generation_tokens").asDouble()).isGreaterThan(200);
    assertThat(server.at("/latency_ms/queue_time/count").asDouble()).isGreaterThan(10);
    JsonNode series = server.get("time_series");
    assertThat(series.get("offset_s").size()).isEqualTo(series.get("waiting").size()).isGreaterThan(20);
    assertThat(series.get("offset_s").get(0).asDouble()).isBetween(0.0, 0.5);

    // The words, on the terminal and in report.html, against the simulator's exact queue times.
    Matcher m = WORDS.matcher(r.out());
    assertThat(m.find()).as(r.out()).isTrue();
    double clientP50 = Double.parseDouble(m.group(1));
    double queueMs = Double.parseDouble(m.group(2));
    double trueQueueMs = truth.queueNanos().getValueAtPercentile(50) / 1e6;
    assertThat(trueQueueMs).as("the load queues").isGreaterThan(600);
    double bucketMs = 1e3 * bucketWidth(trueQueueMs / 1e3);
    assertThat(queueMs).as("vLLM queue time p50 %s ms against the truth %s ms", queueMs, trueQueueMs)
        .isBetween(trueQueueMs - bucketMs, trueQueueMs + bucketMs);
    double share = queueMs / clientP50;
    double trueShare = trueQueueMs / clientP50;
    assertThat(share).as("queue-time share of TTFT p50").isBetween(trueShare - bucketMs / clientP50,
        trueShare + bucketMs / clientP50);
    assertThat(trueShare).isGreaterThan(0.7); // queueing is most of the wait, as the load intends
    // Prefill lies in vLLM's lowest bucket (0 to 300 ms), where its exact mean places it more finely.
    assertThat(r.out()).containsPattern("\\((Queue and prefill|Prefill): the server's exact mean, which lies in the"
        + " histogram bucket of the median");
    double prefillMs = Double.parseDouble(m.group(3));
    // The truth covers the whole run (warm-up's first, slower prefills too), the words the window: the
    // window's mean lies within the run's spread and well inside the lowest bucket.
    assertThat(prefillMs).as("prefill mean against the truth").isBetween(
        truth.prefillNanos().getMinValue() / 1e6, truth.prefillNanos().getValueAtPercentile(99) / 1e6).isLessThan(300);
    assertThat(Files.readString(out.resolve("report.html"))).contains("were queueing in the server (vLLM queue time)")
        .contains("chart-stage-0-server");

    // promtool parses it; its only objections are the lint on vLLM's own colon names (exit 3: lint
    // problems only), which a real vLLM's /metrics draws as well, and on the DCGM series' camelCase
    // labels (UUID, modelName) and energy counter without _total, as dcgm-exporter writes them.
    PrometheusServer.ToolResult lint = PrometheusServer.checkMetrics(exposition);
    assertThat(lint.exitCode()).as(lint.output()).isIn(0, 3);
    assertThat(lint.output().lines().filter(l -> !l.isBlank()))
        .allMatch(l -> l.startsWith("vllm:") && l.endsWith("metric names should not contain ':'")
            || l.startsWith("DCGM_FI_") && (l.endsWith("label names should be written in 'snake_case' not 'camelCase'")
                || l.endsWith("counter metrics should have \"_total\" suffix")));
  }

  /** The width of vLLM's request-latency bucket that holds {@code seconds}. */
  private static double bucketWidth(double seconds) {
    double lower = 0;
    for (double upper : REQUEST_BUCKETS) {
      if (seconds <= upper) {
        return upper - lower;
      }
      lower = upper;
    }
    throw new AssertionError(seconds + " s is beyond the buckets this test expects");
  }

  @ParameterizedTest
  @CsvSource({
    "/nope, answered HTTP 404",
    "/v1/models, did not answer Prometheus text (line 1: ",
  })
  void aScrapeFailureIsOneLineAndTheRunGoesOn(String path, String says) throws Exception {
    Path out = tmp.resolve("run");
    Cli.Result r;
    try (SimFixture sim = SimFixture.start(SimFixture.config(5, 2))) {
      r = Cli.run("bench", "--url", sim.baseUrl(), "--concurrency", "2", "--requests", "6", "--warmup", "0s",
          "--cooldown", "0s", "--input-tokens", "16", "--output-tokens", "4",
          "--server-metrics", sim.baseUrl() + path, "--server-metrics-interval", "200ms", "--out", out.toString());
    }
    assertThat(r.exitCode()).as(r.both()).isZero();
    assertThat(r.err().lines().filter(l -> l.contains("server metrics:")).toList())
        .singleElement().asString().contains(says).contains("the run goes on");
    JsonNode stage = JSON.readTree(out.resolve("summary.json").toFile()).get("stages").get(0);
    assertThat(stage.get("requests").get("completed").asInt()).isEqualTo(6);
    assertThat(stage.has("server")).isFalse();
  }

  private static byte[] get(String url) throws Exception {
    try (HttpClient http = HttpClient.newHttpClient()) {
      return http.send(HttpRequest.newBuilder(URI.create(url)).build(), HttpResponse.BodyHandlers.ofByteArray()).body();
    }
  }
}

package dev.tokenmeter.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assertions.fail;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.tokenmeter.proxy.RawHttp;
import dev.tokenmeter.testkit.Cli;
import dev.tokenmeter.testkit.OtlpReceiver;
import dev.tokenmeter.testkit.PrometheusServer;
import dev.tokenmeter.testkit.SimFixture;
import io.opentelemetry.proto.metrics.v1.HistogramDataPoint;
import io.opentelemetry.proto.metrics.v1.Metric;
import io.opentelemetry.proto.metrics.v1.NumberDataPoint;
import java.net.ServerSocket;
import java.nio.file.Path;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * A bench run exported live: a real Prometheus scrapes {@code bench --metrics-port} while it runs,
 * and {@code bench --otlp} pushes to a local OTLP/HTTP receiver; in both, the run's output-token
 * total and request count equal what summary.json says (the sum of every stage's per-second output
 * tokens, and of its requests by phase). And {@code proxy --otlp} pushes what it metered.
 */
@Timeout(120)
class LiveExportIT {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final String IGNORE_EOS = "{\"ignore_eos\":true}";

  /** Output tokens and requests of every stage of a run, from its summary.json. */
  private record Totals(long outputTokens, long requests) {}

  private static Totals totals(Path out) throws Exception {
    JsonNode summary = JSON.readTree(out.resolve("summary.json").toFile());
    long tokens = 0;
    long requests = 0;
    for (JsonNode stage : summary.get("stages")) {
      for (JsonNode perSecond : stage.at("/time_series/output_tokens")) {
        tokens += perSecond.asLong();
      }
      for (JsonNode phase : stage.at("/requests/by_phase")) {
        requests += phase.get("completed").asLong() + phase.get("failed").asLong();
      }
    }
    return new Totals(tokens, requests);
  }

  private static String[] bench(SimFixture sim, Path out, String... export) {
    return benchWithStages(sim, out, "2s", export);
  }

  private static String[] benchWithStages(SimFixture sim, Path out, String stageDuration, String... export) {
    String[] plan = {"bench", "--url", sim.baseUrl(), "--concurrency", "2,4", "--duration", stageDuration, "--warmup", "500ms",
      "--cooldown", "0s", "--input-tokens", "16", "--output-tokens", "12", "--extra-body", IGNORE_EOS,
      "--out", out.toString(), "-q"};
    String[] all = java.util.Arrays.copyOf(plan, plan.length + export.length);
    System.arraycopy(export, 0, all, plan.length, export.length);
    return all;
  }

  @Test
  void prometheusScrapesARunningBenchAndItsTokenTotalIsTheSummarys(@TempDir Path dir) throws Exception {
    PrometheusServer.assumeInstalled();
    int port;
    try (ServerSocket s = new ServerSocket(0)) {
      port = s.getLocalPort();
    }
    Path out = dir.resolve("run");
    try (SimFixture sim = SimFixture.start(SimFixture.config(20, 5));
        PrometheusServer prometheus = PrometheusServer.start(dir, port)) {
      // 6 s stages: Prometheus passes discovered targets to its scrapers at most every 5 s, so its
      // first scrape can come 5-6 s after its start; with 2 s stages a quiet machine finished the
      // run before it (CI, 2026-11-25), and no scrape saw a request in flight.
      Cli.Result r = Cli.run(benchWithStages(sim, out, "6s", "--metrics-port", Integer.toString(port), "--metrics-linger", "30s"));
      assertThat(r.exitCode()).as(r.both()).isZero();
      assertThat(r.err()).contains("tokenmeter: live metrics at http://127.0.0.1:" + port + "/metrics")
          .contains("waiting up to 30 s for a last scrape");
      Totals t = totals(out);
      assertThat(t.outputTokens()).isPositive();
      awaitValue(prometheus, "sum(gen_ai_client_token_usage_sum{gen_ai_token_type=\"output\"})", t.outputTokens());
      awaitValue(prometheus, "sum(tokenmeter_bench_requests_total)", t.requests());
      awaitValue(prometheus, "count(count by (stage, load) (gen_ai_client_operation_duration_seconds_count))", 2);
      awaitValue(prometheus, "sum(tokenmeter_bench_active_requests{stage=\"2\",load=\"c=4\"})", 0);
      awaitValue(prometheus, "max_over_time(sum(tokenmeter_bench_active_requests)[1m:1s]) > 0", 1, true);
    }
  }

  @Test
  void otlpReceivesTheRunAndItsTotalsAreTheSummarys(@TempDir Path dir) throws Exception {
    Path out = dir.resolve("run");
    try (SimFixture sim = SimFixture.start(SimFixture.config(20, 5)); OtlpReceiver receiver = OtlpReceiver.start()) {
      Cli.Result r = Cli.run(bench(sim, out, "--otlp", receiver.root(), "--otlp-interval", "500ms"));
      assertThat(r.exitCode()).as(r.both()).isZero();
      assertThat(r.err()).contains("pushing metrics to " + receiver.root() + "/v1/metrics every 500 ms (OTLP/HTTP)")
          .doesNotContain("failed");
      assertThat(receiver.requests().size()).as("periodic pushes, then the final one").isGreaterThanOrEqualTo(3);
      Totals t = totals(out);
      Metric tokens = receiver.last("gen_ai.client.token.usage").orElseThrow();
      long output = 0;
      for (HistogramDataPoint p : tokens.getHistogram().getDataPointsList()) {
        if ("output".equals(OtlpReceiver.attribute(p.getAttributesList(), "gen_ai.token.type"))) {
          output += (long) p.getSum();
          assertThat(OtlpReceiver.attribute(p.getAttributesList(), "gen_ai.operation.name")).isEqualTo("chat");
          assertThat(OtlpReceiver.attribute(p.getAttributesList(), "stage")).isIn("1", "2");
        }
      }
      assertThat(output).isEqualTo(t.outputTokens());
      long requests = 0;
      for (NumberDataPoint p : receiver.last("tokenmeter.bench.requests").orElseThrow().getSum().getDataPointsList()) {
        requests += (long) p.getAsDouble();
      }
      assertThat(requests).isEqualTo(t.requests());
      assertThat(receiver.last("gen_ai.client.operation.time_to_first_chunk").orElseThrow().getUnit()).isEqualTo("s");
      assertThat(receiver.last("tokenmeter.bench.active_requests")).isPresent();
    }
  }

  @Test
  void theProxyPushesWhatItMetered(@TempDir Path dir) throws Exception {
    Pattern listening = Pattern.compile("listening on (http://127\\.0\\.0\\.1:\\d+)");
    try (SimFixture sim = SimFixture.start(SimFixture.config(5, 2)); OtlpReceiver receiver = OtlpReceiver.start()) {
      CompletableFuture<String> url = new CompletableFuture<>();
      CompletableFuture<Cli.Result> result = new CompletableFuture<>();
      Thread proxy = new Thread(() -> result.complete(Cli.run(line -> {
        Matcher m = listening.matcher(line);
        if (m.find()) {
          url.complete(m.group(1));
        }
      }, "proxy", "--listen", "127.0.0.1:0", "--upstream", sim.baseUrl(), "--ledger", "none",
          "--otlp", receiver.root(), "--otlp-interval", "1h")));
      proxy.start();
      String base = url.get(20, TimeUnit.SECONDS);
      RawHttp.Response r = RawHttp.post(base, "/v1/chat/completions",
          "{\"model\":\"tokenmeter-sim\",\"messages\":[{\"role\":\"user\",\"content\":\"hi\"}],\"stream\":true,\"max_tokens\":3}");
      assertThat(r.status()).isEqualTo(200);
      Thread.sleep(200); // the record thread counts the request
      proxy.interrupt();
      Cli.Result done = result.get(20, TimeUnit.SECONDS);
      assertThat(done.exitCode()).as(done.both()).isZero();
      assertThat(done.err()).contains("pushing metrics to " + receiver.root() + "/v1/metrics");
      assertThat(receiver.requests()).as("the push at stop").hasSize(1);
      HistogramDataPoint output = receiver.last("gen_ai.client.token.usage").orElseThrow().getHistogram()
          .getDataPointsList().stream()
          .filter(p -> "output".equals(OtlpReceiver.attribute(p.getAttributesList(), "gen_ai.token.type")))
          .findFirst().orElseThrow();
      assertThat(output.getSum()).isEqualTo(3);
      assertThat(OtlpReceiver.attribute(output.getAttributesList(), "upstream")).isEqualTo("default");
    }
  }

  @Test
  void aBadOtlpUrlIsOneLineAndExit2() {
    Cli.Result r = Cli.run("bench", "--url", "http://127.0.0.1:9", "--concurrency", "1", "--requests", "1",
        "--otlp", "collector:4318");
    assertThat(r.exitCode()).as(r.both()).isEqualTo(2);
    assertThat(r.err().strip()).isEqualTo(
        "tokenmeter: --otlp collector:4318: give the collector's http(s)://HOST:PORT (OTLP/HTTP, e.g. http://127.0.0.1:4318)");
  }

  private static void awaitValue(PrometheusServer prometheus, String promql, double want) throws Exception {
    awaitValue(prometheus, promql, want, false);
  }

  /** Waits (30 s at most) until {@code promql} is one series of value {@code want} (or any, when a filter). */
  private static void awaitValue(PrometheusServer prometheus, String promql, double want, boolean filter) throws Exception {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
    JsonNode last = null;
    while (System.nanoTime() < deadline) {
      last = prometheus.query(promql);
      if (last.size() == 1 && (filter || Double.parseDouble(last.get(0).path("value").get(1).asText()) == want)) {
        return;
      }
      Thread.sleep(200);
    }
    fail("after 30 s " + promql + " is " + last + ", want " + want + "\nprometheus log:\n" + prometheus.logTail());
  }
}

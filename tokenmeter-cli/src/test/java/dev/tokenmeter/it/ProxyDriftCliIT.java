package dev.tokenmeter.it;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.tokenmeter.governance.DriftCheck;
import dev.tokenmeter.governance.DriftStats;
import dev.tokenmeter.ledger.Ledgers;
import dev.tokenmeter.proxy.RawHttp;
import dev.tokenmeter.testkit.Cli;
import dev.tokenmeter.testkit.SimFixture;
import dev.tokenmeter.testkit.WebhookReceiver;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Drift end to end: a short bench run at 512 input tokens is the baseline; traffic through {@code
 * tokenmeter proxy --baseline} at about 1,200 prompt tokens raises the drift notice with the ratio
 * (log, webhook, metrics); {@code proxy drift} says the same from the ledger; {@code proxy
 * export-workload} and {@code bench --workload} reproduce the observed lengths.
 */
@Timeout(180)
class ProxyDriftCliIT {
  private static final Pattern LISTENING = Pattern.compile("listening on (http://127\\.0\\.0\\.1:\\d+)");
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final String IGNORE_EOS = "{\"ignore_eos\":true}";

  @TempDir Path dir;

  @Test
  void longerPromptsThanBenchmarkedRaiseTheNoticeAndTheProfileRoundTrips() throws Exception {
    Path baseline = dir.resolve("baseline");
    Path ledger = dir.resolve("ledger.db");
    try (WebhookReceiver receiver = WebhookReceiver.start(0);
        SimFixture sim = SimFixture.start(SimFixture.config(2, 1))) {
      Cli.Result bench = Cli.run("bench", "--url", sim.baseUrl(), "--concurrency", "1", "--requests", "60",
          "--warmup", "0s", "--cooldown", "0s", "--input-tokens", "512", "--output-tokens", "uniform:8,40",
          "--extra-body", IGNORE_EOS, "--out", baseline.toString(), "-q");
      assertThat(bench.exitCode()).as(bench.both()).isZero();
      JsonNode summary = JSON.readTree(baseline.resolve("summary.json").toFile());
      String model = summary.path("target").path("model").asText();
      double baselineMedian = DriftStats.median(column(baseline.resolve("requests.jsonl"), "input_tokens"));

      CompletableFuture<String> url = new CompletableFuture<>();
      CompletableFuture<Cli.Result> result = new CompletableFuture<>();
      Thread proxy = new Thread(() -> result.complete(Cli.run(line -> {
        Matcher m = LISTENING.matcher(line);
        if (m.find()) {
          url.complete(m.group(1));
        }
      }, "proxy", "--listen", "127.0.0.1:0", "--upstream", sim.baseUrl(), "--ledger", ledger.toString(),
          "--baseline", baseline.toString(), "--alert-webhook", receiver.url().toString())));
      proxy.start();
      String base = url.get(20, TimeUnit.SECONDS);
      SplittableRandom random = new SplittableRandom(7);
      List<Double> sent = new ArrayList<>();
      for (int i = 0; i < 120; i++) {
        int promptTokens = (int) Math.round(1200 + 60 * (random.nextDouble() * 2 - 1)); // 1140..1260
        int maxTokens = (int) random.nextLong(8, 41);
        sent.add((double) promptTokens);
        assertThat(RawHttp.post(base, "/v1/chat/completions", body(model, promptTokens, maxTokens)).status())
            .isEqualTo(200);
      }
      String metrics = RawHttp.get(base, "/metrics").text();
      proxy.interrupt();
      Cli.Result done = result.get(20, TimeUnit.SECONDS);
      assertThat(done.exitCode()).as(done.both()).isZero();
      // the simulator counts chat prompts as 3 + 4 + ceil(chars / 4): the sizes sent, as the proxy records them;
      // the notice comes at the 100th request (a check every 100)
      double liveMedian = DriftStats.median(sent.subList(0, 100).stream().mapToDouble(Double::doubleValue).toArray());
      String ratio = String.format(Locale.ROOT, "%.1fx", liveMedian / baselineMedian);
      assertThat(done.err()).contains("drift against " + baseline.resolve("requests.jsonl"))
          .contains("drift notice: prompts are " + ratio + " longer than the 512 tokens you benchmarked (median "
              + words(liveMedian) + " vs " + words(baselineMedian) + " tokens as the server counted them; KS D=1.00, p<0.0001")
          .contains("your TTFT SLO was verified for 512 (100 requests over the last 15 min)");
      assertThat(done.err()).doesNotContain("outputs are").doesNotContain("concurrency is");
      assertThat(receiver.bodies).isNotEmpty().first().asString().contains("\"kind\":\"drift\"", "\"dimensions\":[\"input_tokens\"]");
      assertThat(metrics).contains("tokenmeter_proxy_drift{dimension=\"input_tokens\"} 1.0")
          .contains("tokenmeter_proxy_drift{dimension=\"output_tokens\"} 0.0");

      Cli.Result drift = Cli.run("proxy", "drift", "--ledger", ledger.toString(), "--baseline", baseline.toString(),
          "--since", "1h");
      assertThat(drift.exitCode()).as(drift.both()).isZero();
      assertThat(drift.out()).contains("  DRIFT input_tokens: prompts are " + ratio + " longer than the 512 tokens")
          .contains("  ok    output_tokens: outputs match what you benchmarked")
          .contains("shared-prefix share: not compared");

      roundTrip(sim, ledger);
    }
  }

  /** export-workload, then bench --workload: the lengths bench asks for are the ledger's (KS not rejected). */
  private void roundTrip(SimFixture sim, Path ledger) throws Exception {
    Path profile = dir.resolve("profile.json");
    Cli.Result export = Cli.run("proxy", "export-workload", "--ledger", ledger.toString(), "--since", "1h",
        "--out", profile.toString());
    assertThat(export.exitCode()).as(export.both()).isZero();
    assertThat(export.out()).contains("wrote " + profile + ": 120 requests");
    JsonNode p = JSON.readTree(profile.toFile());
    assertThat(p.path("format").asText()).isEqualTo("tokenmeter-workload-profile/1");
    assertThat(p.path("input_tokens").path("quantiles")).hasSize(101);
    assertThat(p.path("arrivals").path("mean_rate_per_s").asDouble()).isPositive();

    List<Double> ledgerIn = new ArrayList<>();
    List<Double> ledgerOut = new ArrayList<>();
    Ledgers.openExisting(ledger.toString(), Map.of()).workload(Instant.EPOCH, r -> {
      if (r.ok() && r.model() != null) {
        ledgerIn.add((double) r.inputTokens());
        ledgerOut.add((double) r.outputTokens());
      }
    });
    Path replay = dir.resolve("replay");
    Cli.Result bench = Cli.run("bench", "--url", sim.baseUrl(), "--concurrency", "2", "--requests", "150",
        "--warmup", "0s", "--cooldown", "0s", "--workload", profile.toString(), "--extra-body", IGNORE_EOS,
        "--out", replay.toString(), "-q");
    assertThat(bench.exitCode()).as(bench.both()).isZero();
    double[] askedIn = column(replay.resolve("requests.jsonl"), "client_prompt_tokens");
    double[] gotOut = column(replay.resolve("requests.jsonl"), "output_tokens");
    double[] in = ledgerIn.stream().mapToDouble(Double::doubleValue).toArray();
    double[] out = ledgerOut.stream().mapToDouble(Double::doubleValue).toArray();
    assertThat(DriftStats.ks(in, askedIn).pValue()).as("input lengths KS").isGreaterThan(DriftCheck.ALPHA);
    assertThat(DriftStats.ks(out, gotOut).pValue()).as("output lengths KS").isGreaterThan(DriftCheck.ALPHA);
    JsonNode workload = JSON.readTree(replay.resolve("summary.json").toFile()).path("settings").path("workload");
    assertThat(workload.path("input_tokens").asText()).isEqualTo("workload:" + profile);
    assertThat(workload.path("workload_profile").asText()).isEqualTo(profile.toString());
  }

  /** A median as the report writes it: whole, or to one decimal (a mean of two). */
  private static String words(double median) {
    return median == Math.rint(median) ? String.format(Locale.ROOT, "%.0f", median) : String.format(Locale.ROOT, "%.1f", median);
  }

  /** A chat request whose prompt the simulator counts as {@code promptTokens} (3 + 4 + chars / 4). */
  private static String body(String model, int promptTokens, int maxTokens) {
    String content = "abcd".repeat(promptTokens - 7);
    return "{\"model\":\"" + model + "\",\"messages\":[{\"role\":\"user\",\"content\":\"" + content
        + "\"}],\"stream\":true,\"max_tokens\":" + maxTokens + ",\"ignore_eos\":true}";
  }

  /** {@code field} of every measured, completed line of a requests.jsonl. */
  private static double[] column(Path jsonl, String field) throws Exception {
    List<Double> values = new ArrayList<>();
    for (String line : Files.readAllLines(jsonl)) {
      JsonNode j = JSON.readTree(line);
      if (j.path("ok").asBoolean() && "measured".equals(j.path("phase").asText()) && j.hasNonNull(field)) {
        values.add(j.get(field).asDouble());
      }
    }
    assertThat(values).as(field + " in " + jsonl).hasSizeGreaterThan(10);
    return values.stream().mapToDouble(Double::doubleValue).toArray();
  }
}

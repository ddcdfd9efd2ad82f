package dev.tokenmeter.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.tokenmeter.report.JsonSchemaSubset;
import dev.tokenmeter.testkit.Cli;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Cost options on simulate: summary.json's pricing and stages[].cost, console lines, usage errors. */
class CostCommandTest {
  private static final ObjectMapper JSON = new ObjectMapper();

  @Test
  void eachStageIsCostedFromItsOwnThroughput(@TempDir Path dir) throws Exception {
    Cli.Result r = Cli.run(
        "simulate", "--gpus", "2", "--concurrency", "1,16", "--input-tokens", "200", "--output-tokens", "50",
        "--duration", "10s", "--warmup", "1s", "--cooldown", "1s", "--price-in", "0.5", "--price-out", "1.5",
        "--gpu-cost", "2.4", "--traffic", "1M req/day", "--currency", "EUR",
        "--out", dir.toString());
    assertThat(r.exitCode()).as(r.both()).isZero();
    assertThat(r.out()).contains("cost (tokens at 0.5 in / 1.5 out per 1M EUR): 0.000175 EUR per request")
        .contains("cost (2 GPUs at 2.4 EUR/h, at this stage's throughput)");

    JsonNode s = JSON.readTree(dir.resolve("summary.json").toFile());
    JsonNode schema = JSON.readTree(Path.of("docs/summary.schema.json").toFile());
    assertThat(JsonSchemaSubset.check(schema, s)).isEmpty();
    assertThat(s.at("/pricing/currency").asText()).isEqualTo("EUR");
    assertThat(s.at("/pricing/gpus").asInt()).isEqualTo(2); // simulate's --gpus
    assertThat(s.at("/pricing/traffic_requests_per_day").asDouble()).isEqualTo(1e6);

    // Every request is exactly 200 in + 50 out: 200 x 0.5e-6 + 50 x 1.5e-6 = 0.000175 a request,
    // 0.000175 / 50 x 1e6 = 3.5 per 1M output tokens; a conversation of one turn 0.000175 (simulate
    // --turns runs real conversations, costed as they went: SessionsIT); 30 M requests a month 5250.
    JsonNode tokens = s.at("/stages/0/cost/tokens");
    assertThat(tokens.get("per_request").asDouble()).isCloseTo(0.000175, within(1e-12));
    assertThat(tokens.get("per_1m_output_tokens").asDouble()).isCloseTo(3.5, within(1e-9));
    assertThat(tokens.get("per_conversation").asDouble()).isCloseTo(0.000175, within(1e-12));
    assertThat(tokens.get("per_month").asDouble()).isCloseTo(5250, within(1e-6));

    for (int i = 0; i < 2; i++) {
      JsonNode stage = s.at("/stages/" + i);
      double rps = stage.at("/throughput/requests_per_s").asDouble();
      double tps = stage.at("/throughput/output_tokens_per_s").asDouble();
      JsonNode gpu = stage.at("/cost/gpu");
      // 2 GPUs x 2.4 / 3600 s = 0.0013333 per second of serving.
      assertThat(gpu.get("per_request").asDouble()).isCloseTo(4.8 / 3600 / rps, within(1e-12));
      assertThat(gpu.get("per_1m_output_tokens").asDouble()).isCloseTo(4.8 / 3600 / tps * 1e6, within(1e-9));
      long deployments = (long) Math.ceil(1e6 / 86_400 / rps);
      assertThat(gpu.get("deployments").asLong()).isEqualTo(deployments);
      assertThat(gpu.get("per_month").asDouble()).isCloseTo(deployments * 4.8 * 24 * 30, within(1e-6));
    }
    // 16 users share each iteration: a request costs less in GPU time than alone.
    assertThat(s.at("/stages/1/cost/gpu/per_request").asDouble())
        .isLessThan(s.at("/stages/0/cost/gpu/per_request").asDouble() / 4);
  }

  @Test
  void trafficUnitsAndUsageErrors() {
    assertThat(CostOptions.requestsPerDay("10000req/day")).isEqualTo(10_000);
    assertThat(CostOptions.requestsPerDay("50req/s")).isEqualTo(50 * 86_400);
    assertThat(CostOptions.requestsPerDay("2k req/h")).isEqualTo(48_000);
    assertThat(CostOptions.requestsPerDay("3M requests/month")).isEqualTo(100_000);
    assertThat(CostOptions.requestsPerDay("1.5/min")).isEqualTo(2_160);

    assertUsage(Cli.run("simulate", "--concurrency", "1", "--traffic", "100req/day"), "--traffic");
    assertUsage(Cli.run("simulate", "--concurrency", "1", "--gpu-cost", "2", "--traffic", "lots"), "--traffic 'lots'");
    assertUsage(Cli.run("simulate", "--concurrency", "1", "--price-in", "-1"), "--price-in");
    assertUsage(Cli.run("bench", "--url", "http://127.0.0.1:1", "--concurrency", "1", "--gpu-cost", "2", "--gpus", "0"), "--gpus");
  }

  private static void assertUsage(Cli.Result r, String mention) {
    assertThat(r.exitCode()).as(r.both()).isEqualTo(2);
    assertThat(r.err()).as(r.both()).startsWith("tokenmeter: ").contains(mention).doesNotContain("\tat ");
  }
}

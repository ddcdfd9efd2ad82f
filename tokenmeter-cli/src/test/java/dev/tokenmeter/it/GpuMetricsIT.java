package dev.tokenmeter.it;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.tokenmeter.core.time.Ticker;
import dev.tokenmeter.simulator.EmissionRecord;
import dev.tokenmeter.simulator.EngineTiming;
import dev.tokenmeter.simulator.engine.EngineConfig;
import dev.tokenmeter.simulator.engine.Presets;
import dev.tokenmeter.testkit.Cli;
import dev.tokenmeter.testkit.SimFixture;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code bench --gpu-metrics} against the engine-backed simulator, whose {@code /metrics} serves
 * DCGM's series from its power model: the joules per output token bench reads off the DCGM energy
 * counter match the simulator's own energy per token (the model's exact energy over the steady part
 * of the run, divided by the tokens it emitted in it) within 10 %. The 10 %: bench's window and the
 * truth's span differ (the window is the measured 5 s, the truth everything between the first
 * 1.5 s and the last 0.5 s of emission), and at a steady 8 users the energy per token varies little
 * across them; an energy read in the wrong unit (mJ as J) or a window counted twice is off by far
 * more.
 */
@Timeout(90)
class GpuMetricsIT {
  private static final ObjectMapper JSON = new ObjectMapper();

  @TempDir Path tmp;

  @Test
  void joulesPerOutputTokenFromTheDcgmCounterMatchTheSimulatorsEnergy() throws Exception {
    EngineTiming timing = new EngineTiming(
        EngineConfig.of(Presets.model("llama-3.1-8b"), Presets.gpu("h100-sxm")), Ticker.system());
    Path out = tmp.resolve("run");
    Cli.Result r;
    double truthJoulesPerToken;
    try (SimFixture sim = SimFixture.start(SimFixture.config(0, 0).timing(timing).maxModelLen(timing.maxModelLen()))) {
      r = Cli.run("bench", "--url", sim.baseUrl(), "--concurrency", "8", "--duration", "5s", "--warmup", "2s",
          "--cooldown", "0s", "--input-tokens", "256", "--output-tokens", "64", "--extra-body", "{\"ignore_eos\":true}",
          "--gpu-metrics", sim.baseUrl() + "/metrics", "--gpu-metrics-interval", "250ms", "--power-price", "0.12",
          "--out", out.toString());
      sim.awaitAllRecords(5_000);
      long first = Long.MAX_VALUE;
      long last = Long.MIN_VALUE;
      for (EmissionRecord e : sim.records()) {
        for (long t : e.intendedNanos()) {
          first = Math.min(first, t);
          last = Math.max(last, t);
        }
      }
      long from = first + 1_500_000_000L;
      long to = last - 500_000_000L;
      long tokens = 0;
      for (EmissionRecord e : sim.records()) {
        for (long t : e.intendedNanos()) {
          tokens += t >= from && t < to ? 1 : 0;
        }
      }
      truthJoulesPerToken = timing.energyJoules(from, to) / tokens;
    }
    assertThat(r.exitCode()).as(r.both()).isZero();
    JsonNode gpu = JSON.readTree(out.resolve("summary.json").toFile()).get("stages").get(0).get("gpu");
    assertThat(gpu.get("source").asText()).isEqualTo("dcgm");
    assertThat(gpu.get("gpus").asInt()).isEqualTo(1);
    assertThat(gpu.get("energy_source").asText()).isEqualTo("counter");
    assertThat(gpu.get("window_readings").asInt()).as(gpu.toString()).isGreaterThanOrEqualTo(8); // every 250 ms asked; a loaded machine answers slower
    double measured = gpu.get("joules_per_output_token").asDouble();
    assertThat(truthJoulesPerToken).as("an H100 at 8 users draws a fraction of a joule per token").isBetween(0.05, 2.0);
    assertThat(measured).as("bench %s J/token against the simulator's %s", measured, truthJoulesPerToken)
        .isBetween(truthJoulesPerToken * 0.9, truthJoulesPerToken * 1.1);
    // The H100's idle 70 W to its 700 W TDP bound the mean power; the price turns J into money.
    assertThat(gpu.get("power_mean_w").asDouble()).isBetween(70.0, 700.0);
    assertThat(gpu.get("energy_cost_per_1m_output_tokens").asDouble())
        .isCloseTo(measured * 1e6 / 3.6e6 * 0.12, org.assertj.core.data.Percentage.withPercentage(0.01));
    assertThat(r.out()).containsPattern("GPUs \\(DCGM, 1\\): \\d+ W mean, \\d+ W peak, util \\d+%; [0-9.]+ J per output"
        + " token \\(energy counter\\)");
  }

  @Test
  void anEndpointWithoutGpuSeriesIsOneLineAndTheRunGoesOn() throws Exception {
    Path out = tmp.resolve("plain");
    Cli.Result r;
    try (SimFixture sim = SimFixture.start(SimFixture.config(0, 1))) {
      r = Cli.run("bench", "--url", sim.baseUrl(), "--concurrency", "2", "--duration", "1s", "--warmup", "0s",
          "--cooldown", "0s", "--input-tokens", "32", "--output-tokens", "8",
          "--gpu-metrics", sim.baseUrl() + "/metrics", "--out", out.toString());
    }
    assertThat(r.exitCode()).as(r.both()).isZero();
    assertThat(r.err().lines().filter(l -> l.contains("GPU metrics")).toList()).singleElement().asString()
        .contains("has no GPU series").endsWith("the run goes on without energy figures");
    assertThat(JSON.readTree(out.resolve("summary.json").toFile()).get("stages").get(0).has("gpu")).isFalse();
  }
}

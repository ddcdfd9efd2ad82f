package dev.tokenmeter.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tokenmeter.run.GpuWatch;
import dev.tokenmeter.testkit.Cli;
import java.net.URI;
import org.junit.jupiter.api.Test;

/** {@code --gpu-metrics URL[,URL...]|nvml}, {@code --gpu-metrics-interval}, {@code --power-price}: parsing and bad input. */
class GpuMetricsOptionsTest {

  private static GpuMetricsOptions options(String spec, String interval) {
    GpuMetricsOptions o = new GpuMetricsOptions();
    o.spec = spec;
    o.interval = interval;
    return o;
  }

  @Test
  void urlsAreListedAndAPathlessOneGetsMetrics() {
    GpuWatch.Settings s = options("http://node-a:9400/metrics, http://node-b:9400", "500ms").resolve(0.12, "EUR");
    assertThat(s.urls()).containsExactly(URI.create("http://node-a:9400/metrics"), URI.create("http://node-b:9400/metrics"));
    assertThat(s.nvml()).isFalse();
    assertThat(s.intervalNanos()).isEqualTo(500_000_000L);
    assertThat(s.pricePerKwh()).isEqualTo(0.12);
    assertThat(s.currency()).isEqualTo("EUR");
    assertThat(options("NVML", "1s").resolve(Double.NaN, "USD").nvml()).isTrue();
    assertThat(options(null, "1s").resolve(Double.NaN, "USD")).isNull();
  }

  @Test
  void badInputIsOneLineNamingTheFix() {
    assertThatThrownBy(() -> options("ftp://node/metrics", "1s").resolve(Double.NaN, "USD"))
        .isInstanceOf(UsageException.class).hasMessageContaining("give an exporter's http(s) URL");
    assertThatThrownBy(() -> options("http://node:9400/metrics", "0s").resolve(Double.NaN, "USD"))
        .isInstanceOf(UsageException.class).hasMessageContaining("--gpu-metrics-interval must be positive");
    assertThatThrownBy(() -> options(null, "1s").resolve(0.12, "USD"))
        .isInstanceOf(UsageException.class).hasMessage("--power-price prices the GPUs' energy: give --gpu-metrics URL"
            + " (or nvml) too");
  }

  @Test
  void aNegativePowerPriceIsRefusedBeforeTheRun() {
    Cli.Result r = Cli.run("bench", "--url", "http://127.0.0.1:1", "--gpu-metrics", "nvml", "--power-price", "-1",
        "--duration", "1s", "--concurrency", "2");
    assertThat(r.exitCode()).isEqualTo(2);
    assertThat(r.err().strip()).contains("--power-price must be a price of 0 or more, got -1.0").doesNotContain("\tat ");
  }
}

package dev.tokenmeter.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tokenmeter.client.Api;
import dev.tokenmeter.client.EndpointConfig;
import dev.tokenmeter.run.ServerWatch;
import dev.tokenmeter.testkit.Cli;
import java.net.URI;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** {@code --server-metrics [URL]} and {@code --server-metrics-interval}: defaults and bad input. */
class ServerMetricsOptionsTest {
  private static final EndpointConfig TARGET =
      new EndpointConfig(URI.create("http://127.0.0.1:8000/v1"), Api.CHAT, "m", null, Map.of(), null, true, true, 1000);

  private static ServerMetricsOptions options(String url, String interval) {
    ServerMetricsOptions o = new ServerMetricsOptions();
    o.url = url;
    o.interval = interval;
    return o;
  }

  @Test
  void withoutTheOptionNothingIsScraped() {
    assertThat(options(null, "1s").resolve(TARGET)).isNull();
  }

  @Test
  void theDefaultUrlIsTheTargetsRootMetrics() {
    ServerWatch.Settings s = options("", "250ms").resolve(TARGET);
    assertThat(s.url()).isEqualTo(URI.create("http://127.0.0.1:8000/metrics"));
    assertThat(s.intervalNanos()).isEqualTo(250_000_000L);
    assertThat(options("http://10.0.0.2:9400/metrics", "1s").resolve(TARGET).url())
        .isEqualTo(URI.create("http://10.0.0.2:9400/metrics"));
  }

  @Test
  void badInputIsOneLineNamingTheFix() {
    assertThatThrownBy(() -> options("ftp://host/metrics", "1s").resolve(TARGET)).isInstanceOf(UsageException.class)
        .hasMessageContaining("give an http(s) URL such as http://127.0.0.1:8000/metrics");
    assertThatThrownBy(() -> options("http://a b/metrics", "1s").resolve(TARGET)).isInstanceOf(UsageException.class)
        .hasMessageContaining("not a URL");
    assertThatThrownBy(() -> options("", "0s").resolve(TARGET)).isInstanceOf(UsageException.class)
        .hasMessageContaining("must be positive");
    assertThatThrownBy(() -> new ServerWatch.Settings(URI.create("http://x/metrics"), 0))
        .isInstanceOf(IllegalArgumentException.class);
  }

  @Test
  void itDoesNotCombineWithVariants() {
    Cli.Result r = Cli.run("bench", "--url", "http://127.0.0.1:1", "--variant", "a:model=x", "--variant", "b:model=y",
        "--server-metrics", "--duration", "1s", "--concurrency", "2");
    assertThat(r.exitCode()).isEqualTo(2);
    assertThat(r.err()).contains("--server-metrics scrapes one server: it cannot be combined with --variant");
  }
}

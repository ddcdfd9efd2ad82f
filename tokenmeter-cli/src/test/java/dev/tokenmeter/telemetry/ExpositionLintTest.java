package dev.tokenmeter.telemetry;

import static dev.tokenmeter.telemetry.PrometheusProxyMetricsTest.bytes;
import static org.assertj.core.api.Assertions.assertThat;

import dev.tokenmeter.core.request.ErrorClass;
import dev.tokenmeter.testkit.Exposition;
import dev.tokenmeter.testkit.MeteredRequestBuilder;
import dev.tokenmeter.testkit.PrometheusServer;
import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** Every family present at once: promtool's linter passes, and every histogram is well formed. */
class ExpositionLintTest {
  static PrometheusProxyMetrics everyFamily() {
    PrometheusProxyMetrics m = PrometheusProxyMetrics.create(PrometheusProxyMetrics.Limits.DEFAULT, List.of("a", "b"));
    m.started("a");
    m.dropped("ledger");
    for (ErrorClass error : new ErrorClass[] {null, ErrorClass.HTTP_429, ErrorClass.TIMEOUT_IDLE}) {
      MeteredRequestBuilder b = MeteredRequestBuilder.chat("t1", "m1", "a").tokens(1200, 300, 40, 1024)
          .times(300_000, 180_000_000, 12e6, 3_800_000_000L).itl(11_000_000, 30_000_000, 95_000_000)
          .cost(0.0042, "USD");
      m.accept(error == null ? b.build() : b.failed(error, error == ErrorClass.HTTP_429 ? 429 : 200).build());
    }
    m.accept(MeteredRequestBuilder.chat("t2", "e5", "b").endpoint("/v1/embeddings").tokens(64, -1, -1, -1)
        .times(200_000, -1, Double.NaN, 9_000_000).build());
    m.accept(MeteredRequestBuilder.chat("t2", null, "b").endpoint("/v1/models").times(200_000, -1, Double.NaN, 1_000_000).build());
    m.accept(MeteredRequestBuilder.chat("t3", "m1", "b").endpoint("/v1/completions").tokens(5, 1, -1, -1)
        .times(200_000, 40_000_000, Double.NaN, 40_000_000).build());
    return m;
  }

  @Test
  void promtoolCheckMetricsFindsNothingToLint() throws Exception {
    PrometheusServer.assumeInstalled();
    PrometheusServer.ToolResult r = PrometheusServer.checkMetrics(bytes(everyFamily()));
    assertThat(r.output()).isEmpty();
    assertThat(r.exitCode()).isZero();
  }

  @Test
  void promtoolWouldCatchALintProblem() throws Exception {
    PrometheusServer.assumeInstalled();
    byte[] bad = "# HELP x_seconds a counter without _total\n# TYPE x_seconds counter\nx_seconds 1\n"
        .getBytes(StandardCharsets.UTF_8);
    PrometheusServer.ToolResult r = PrometheusServer.checkMetrics(bad);
    assertThat(r.exitCode()).isNotZero();
    assertThat(r.output()).contains("_total");
  }

  @Test
  void everyHistogramSeriesIsCumulativeAndItsInfBucketIsItsCount() {
    Exposition e = Exposition.parse(new String(bytes(everyFamily()), StandardCharsets.UTF_8));
    int checked = 0;
    for (Exposition.Sample count : e.samples()) {
      if (!count.name().endsWith("_count")) {
        continue;
      }
      String family = count.name().substring(0, count.name().length() - "_count".length());
      List<Exposition.Sample> buckets = e.find(family + "_bucket", count.labels()).stream()
          .filter(b -> b.labels().size() == count.labels().size() + 1).toList();
      assertThat(buckets).as(family + count.labels()).hasSizeGreaterThan(10);
      double previous = 0;
      for (Exposition.Sample b : buckets) {
        assertThat(b.value()).as(family + b.labels()).isGreaterThanOrEqualTo(previous);
        previous = b.value();
      }
      Map<String, String> inf = new HashMap<>(count.labels());
      inf.put("le", "+Inf");
      assertThat(e.value(family + "_bucket", inf)).isEqualTo(count.value());
      checked++;
    }
    assertThat(checked).isGreaterThan(20);
  }
}

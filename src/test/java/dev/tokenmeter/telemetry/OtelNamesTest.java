package dev.tokenmeter.telemetry;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tokenmeter.core.request.ErrorClass;
import dev.tokenmeter.core.request.Phase;
import dev.tokenmeter.testkit.MeteredRequestBuilder;
import io.prometheus.metrics.model.registry.PrometheusRegistry;
import io.prometheus.metrics.model.snapshots.MetricSnapshot;
import java.util.Set;
import java.util.TreeSet;
import org.junit.jupiter.api.Test;

/**
 * Every family bench and the proxy register has an OpenTelemetry name in {@link OtelNames} (an
 * unknown one would make every OTLP push fail), and translating that name back by the
 * OpenTelemetry "Prometheus and OpenMetrics Compatibility" rules gives the Prometheus name: the two
 * names of each family are one name, not two lists kept apart.
 */
class OtelNamesTest {
  private static final long MS = 1_000_000L;

  @Test
  void everyFamilyOfBenchAndProxyTranslatesBackToItsPrometheusName() throws Exception {
    Set<String> seen = new TreeSet<>();
    BenchRequests requests = new BenchRequests();
    try (BenchMetrics bench = BenchMetrics.create()) {
      BenchMetrics.Stage stage = new BenchMetrics.Stage("chat", "m", 1, "c=1", "");
      bench.sink(stage, true, (t, m) -> {}).accept(null, requests.completed(Phase.MEASURED, 4, 2, 10, 20));
      bench.inFlight(stage, () -> 1);
      bench.drain();
      seen.addAll(check(bench.registry()));
    }
    PrometheusProxyMetrics proxy = PrometheusProxyMetrics.create();
    proxy.accept(MeteredRequestBuilder.chat("t", "m", "u").tokens(10, 3, 1, 2).times(100_000, 50 * MS, 10e6, 90 * MS)
        .itl(MS, 2 * MS, 3 * MS).cost(0.01, "USD").build());
    proxy.accept(MeteredRequestBuilder.chat("t", "m", "u").failed(ErrorClass.HTTP_5XX, 500).build());
    proxy.dropped("record_queue");
    proxy.budgetUsed("t", "tokens", "day", 0.5);
    seen.addAll(check(proxy.registry()));
    assertThat(seen).as("every name in the table is one that is registered").isEqualTo(OtelNames.prometheusNames());
  }

  @Test
  void anUnknownFamilyIsRefusedByName() {
    assertThatThrownBy(() -> OtelNames.metric("made_up")).hasMessageContaining("no OpenTelemetry name for the metric made_up");
    assertThat(OtelNames.attribute("error_type")).isEqualTo("error.type");
    assertThat(OtelNames.attribute("stage")).isEqualTo("stage");
  }

  private static Set<String> check(PrometheusRegistry registry) {
    Set<String> names = new TreeSet<>();
    for (MetricSnapshot s : registry.scrape()) {
      String prometheus = s.getMetadata().getPrometheusName();
      OtelNames.Name otel = OtelNames.metric(prometheus);
      assertThat(toPrometheus(otel)).as(otel.name()).isEqualTo(prometheus);
      names.add(prometheus);
    }
    return names;
  }

  /** The compatibility rules: dots to underscores, the unit appended (an annotation dropped). */
  private static String toPrometheus(OtelNames.Name n) {
    String base = n.name().replace('.', '_');
    return base + switch (n.unit()) {
      case "s" -> "_seconds";
      case "1" -> "_ratio";
      case "{token}/s" -> "_per_second";
      default -> {
        assertThat(n.unit()).as(n.name() + " unit").matches("\\{[a-z]+}");
        yield "";
      }
    };
  }
}

package dev.tokenmeter.telemetry;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

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
  @Test
  void everyFamilyOfBenchAndProxyTranslatesBackToItsPrometheusName() throws Exception {
    Set<String> seen = new TreeSet<>();
    try (BenchMetrics bench = Populated.bench()) {
      seen.addAll(check(bench.registry()));
    }
    seen.addAll(check(Populated.proxy().registry()));
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

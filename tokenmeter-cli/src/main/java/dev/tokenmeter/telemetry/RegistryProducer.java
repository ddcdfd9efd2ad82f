package dev.tokenmeter.telemetry;

import io.opentelemetry.api.common.Attributes;
import io.opentelemetry.api.common.AttributesBuilder;
import io.opentelemetry.sdk.common.InstrumentationScopeInfo;
import io.opentelemetry.sdk.metrics.data.AggregationTemporality;
import io.opentelemetry.sdk.metrics.data.Data;
import io.opentelemetry.sdk.metrics.data.DoublePointData;
import io.opentelemetry.sdk.metrics.data.GaugeData;
import io.opentelemetry.sdk.metrics.data.HistogramData;
import io.opentelemetry.sdk.metrics.data.HistogramPointData;
import io.opentelemetry.sdk.metrics.data.MetricData;
import io.opentelemetry.sdk.metrics.data.MetricDataType;
import io.opentelemetry.sdk.metrics.data.SumData;
import io.opentelemetry.sdk.metrics.export.MetricProducer;
import io.opentelemetry.sdk.resources.Resource;
import io.prometheus.metrics.model.registry.PrometheusRegistry;
import io.prometheus.metrics.model.snapshots.ClassicHistogramBuckets;
import io.prometheus.metrics.model.snapshots.CounterSnapshot;
import io.prometheus.metrics.model.snapshots.GaugeSnapshot;
import io.prometheus.metrics.model.snapshots.HistogramSnapshot;
import io.prometheus.metrics.model.snapshots.Labels;
import io.prometheus.metrics.model.snapshots.MetricSnapshot;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.function.LongSupplier;

/**
 * Hands the OpenTelemetry SDK what a {@link PrometheusRegistry} holds, as OpenTelemetry metric
 * data: every collection of a reader takes one snapshot of the registry (the same one a scrape
 * takes) and translates it, so the push and {@code /metrics} show one recording and cost the record
 * path nothing more. Cumulative temporality, since the registry's counters and histograms never
 * reset; each point starts when this producer was made.
 *
 * <ul>
 *   <li>a counter becomes a monotonic sum, a gauge a gauge;
 *   <li>a classic histogram an explicit-bucket histogram: the upper bounds but {@code +Inf} become
 *       the boundaries, with the same per-bucket counts (the exposition's {@code le} counts are
 *       their running sums);
 *   <li>names and units come from {@link OtelNames}, label names become attribute keys there too; an
 *       empty label value (a completed request's {@code error_type}) is no attribute, as Prometheus
 *       stores it as no label.
 * </ul>
 *
 * <p>Thread-safe: {@link #produce} only reads the registry.
 */
final class RegistryProducer implements MetricProducer {
  private static final InstrumentationScopeInfo SCOPE =
      InstrumentationScopeInfo.builder("dev.tokenmeter").setVersion(dev.tokenmeter.core.Version.VERSION).build();

  private final PrometheusRegistry registry;
  private final LongSupplier epochNanos;
  private final long startEpochNanos;

  /** @param epochNanos the wall clock, nanoseconds since the epoch (points carry wall time) */
  RegistryProducer(PrometheusRegistry registry, LongSupplier epochNanos) {
    this.registry = registry;
    this.epochNanos = epochNanos;
    this.startEpochNanos = epochNanos.getAsLong();
  }

  @Override
  public Collection<MetricData> produce(Resource resource) {
    long now = epochNanos.getAsLong();
    List<MetricData> out = new ArrayList<>();
    for (MetricSnapshot s : registry.scrape()) {
      if (s.getDataPoints().isEmpty()) {
        continue;
      }
      OtelNames.Name name = OtelNames.metric(s.getMetadata().getPrometheusName());
      String help = s.getMetadata().getHelp() == null ? "" : s.getMetadata().getHelp();
      switch (s) {
        case CounterSnapshot c -> out.add(new Metric(resource, name, help, MetricDataType.DOUBLE_SUM,
            SumData.createDoubleSumData(true, AggregationTemporality.CUMULATIVE, counter(c, now))));
        case GaugeSnapshot g -> out.add(new Metric(resource, name, help, MetricDataType.DOUBLE_GAUGE,
            GaugeData.createDoubleGaugeData(gauge(g, now))));
        case HistogramSnapshot h -> out.add(new Metric(resource, name, help, MetricDataType.HISTOGRAM,
            HistogramData.create(AggregationTemporality.CUMULATIVE, histogram(h, now))));
        default -> throw new IllegalStateException("cannot export a " + s.getClass().getSimpleName()
            + " (" + s.getMetadata().getPrometheusName() + ") over OTLP");
      }
    }
    return out;
  }

  private List<DoublePointData> counter(CounterSnapshot c, long now) {
    List<DoublePointData> points = new ArrayList<>();
    for (CounterSnapshot.CounterDataPointSnapshot p : c.getDataPoints()) {
      points.add(DoublePointData.create(startEpochNanos, now, attributes(p.getLabels()), p.getValue(), List.of()));
    }
    return points;
  }

  private List<DoublePointData> gauge(GaugeSnapshot g, long now) {
    List<DoublePointData> points = new ArrayList<>();
    for (GaugeSnapshot.GaugeDataPointSnapshot p : g.getDataPoints()) {
      points.add(DoublePointData.create(startEpochNanos, now, attributes(p.getLabels()), p.getValue(), List.of()));
    }
    return points;
  }

  private List<HistogramPointData> histogram(HistogramSnapshot h, long now) {
    List<HistogramPointData> points = new ArrayList<>();
    for (HistogramSnapshot.HistogramDataPointSnapshot p : h.getDataPoints()) {
      ClassicHistogramBuckets b = p.getClassicBuckets();
      List<Double> boundaries = new ArrayList<>(b.size());
      List<Long> counts = new ArrayList<>(b.size());
      for (int i = 0; i < b.size(); i++) {
        if (b.getUpperBound(i) != Double.POSITIVE_INFINITY) {
          boundaries.add(b.getUpperBound(i));
        }
        counts.add(b.getCount(i)); // per bucket: the snapshot keeps them so, the text writer sums them to le
      }
      points.add(HistogramPointData.create(startEpochNanos, now, attributes(p.getLabels()), p.getSum(),
          /* hasMin= */ false, 0, /* hasMax= */ false, 0, boundaries, counts));
    }
    return points;
  }

  private static Attributes attributes(Labels labels) {
    AttributesBuilder a = Attributes.builder();
    for (int i = 0; i < labels.size(); i++) {
      if (!labels.getValue(i).isEmpty()) {
        a.put(OtelNames.attribute(labels.getName(i)), labels.getValue(i));
      }
    }
    return a.build();
  }

  /** One translated family. */
  private record Metric(Resource resource, OtelNames.Name name, String help, MetricDataType type, Data<?> data)
      implements MetricData {
    @Override
    public Resource getResource() {
      return resource;
    }

    @Override
    public InstrumentationScopeInfo getInstrumentationScopeInfo() {
      return SCOPE;
    }

    @Override
    public String getName() {
      return name.name();
    }

    @Override
    public String getDescription() {
      return help;
    }

    @Override
    public String getUnit() {
      return name.unit();
    }

    @Override
    public MetricDataType getType() {
      return type;
    }

    @Override
    public Data<?> getData() {
      return data;
    }
  }
}

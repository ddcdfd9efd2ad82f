package dev.tokenmeter.telemetry;

import dev.tokenmeter.ledger.MeteredRequest;
import io.prometheus.metrics.core.datapoints.CounterDataPoint;
import io.prometheus.metrics.expositionformats.PrometheusTextFormatWriter;
import io.prometheus.metrics.model.registry.PrometheusRegistry;
import java.io.IOException;
import java.io.OutputStream;
import java.util.Collection;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;

/**
 * {@link ProxyMetrics} on the official Prometheus Java client: the OpenTelemetry GenAI metrics
 * (token usage by type, operation and request duration, time to first token, time per output
 * token) by operation, model, upstream and tenant, and tokenmeter's own (requests by outcome class,
 * requests in flight per upstream, inter-token latency, decode speed, cost, dropped records).
 * docs/PROXY.md, "Metrics" lists every name, unit and label.
 *
 * <pre>{@code
 * PrometheusProxyMetrics metrics = PrometheusProxyMetrics.create(Limits.DEFAULT, List.of("a", "b"));
 * metrics.started("a");                  // stream path: headers in, routed
 * metrics.ended("a");                    // stream path: however it ended
 * metrics.accept(meteredRequest);        // record path, any thread
 * metrics.scrape(out);                   // GET /metrics, with contentType()
 * }</pre>
 *
 * <p>Thread-safe. {@link #started} and {@link #ended} are wait-free (see {@link InFlight}); {@link
 * #accept} is lock-free once its label combination has been seen, except that an observation made
 * while a scrape collects the same histogram goes through that histogram's short buffer lock.
 * {@link #scrape} may run beside all of them.
 */
public final class PrometheusProxyMetrics implements ProxyMetrics {
  /* design notes
   * Label cardinality is bounded: tenants and models are free strings from clients and keys, so
   * each passes a LabelCap (first N distinct values keep their name, the rest read "other"). Every
   * tenant x model pair costs about 200 exposition lines (4 token types and 2 durations x 15
   * buckets, TTFT, TPOT), so 200 tenants x 50 models is the ceiling of the defaults; lower the caps
   * for a smaller scrape.
   * One map look-up per record: a Series holds the resolved data points of one label combination,
   * so accept() does not pay the client's per-metric labelValues() look-up (a list allocation and
   * a hash of every label value) a dozen times. */

  /**
   * How many distinct values each free label keeps before folding the rest into {@code other}.
   *
   * @param maxTenants distinct {@code tenant} values
   * @param maxModels distinct {@code gen_ai_request_model} values
   * @param maxUpstreams distinct {@code upstream} values (upstreams come from the configuration)
   */
  public record Limits(int maxTenants, int maxModels, int maxUpstreams) {
    /** 200 tenants, 50 models, 32 upstreams. */
    public static final Limits DEFAULT = new Limits(200, 50, 32);

    public Limits {
      requirePositive("maxTenants", maxTenants);
      requirePositive("maxModels", maxModels);
      requirePositive("maxUpstreams", maxUpstreams);
    }

    private static void requirePositive(String name, int value) {
      if (value < 1) {
        throw new IllegalArgumentException(
            "metrics label limit " + name + " must be at least 1, got " + value);
      }
    }
  }

  private static final int MAX_CURRENCIES = 8;
  private static final int MAX_DROP_PLACES = 16;

  private final PrometheusRegistry registry = new PrometheusRegistry();
  private final PrometheusTextFormatWriter writer = PrometheusTextFormatWriter.create();
  private final LabelCap tenants;
  private final LabelCap models;
  private final LabelCap upstreams;
  private final LabelCap currencies = new LabelCap(MAX_CURRENCIES);
  private final LabelCap dropPlaces = new LabelCap(MAX_DROP_PLACES);
  private final InFlight inFlight;
  private final MetricFamilies families;
  private final ConcurrentHashMap<Series.Key, Series> series = new ConcurrentHashMap<>();
  private final ConcurrentHashMap<String, CounterDataPoint> drops = new ConcurrentHashMap<>();
  /** Refusal reasons are the proxy's own fixed words (ProxyMetrics#refused), so not capped. */
  private final ConcurrentHashMap<String, CounterDataPoint> refusals = new ConcurrentHashMap<>();

  private PrometheusProxyMetrics(Limits limits, Collection<String> knownUpstreams) {
    tenants = new LabelCap(limits.maxTenants());
    models = new LabelCap(limits.maxModels());
    upstreams = new LabelCap(limits.maxUpstreams());
    inFlight = new InFlight(upstreams, knownUpstreams);
    families = new MetricFamilies(registry, inFlight);
    // present at 0 from the first scrape, so that a rate() or an alert on them has a series to read
    drops.put(RECORD_QUEUE, families.dropped.labelValues(dropPlaces.fold(RECORD_QUEUE)));
    REFUSAL_REASONS.forEach(r -> refusals.put(r, families.refused.labelValues(r)));
  }

  /**
   * Metrics with the given label limits. The {@code upstreams} of the configuration are registered
   * at once, so their in-flight gauges read 0 from the first scrape and {@link #started} never
   * inserts for them.
   */
  public static PrometheusProxyMetrics create(Limits limits, Collection<String> upstreams) {
    return new PrometheusProxyMetrics(Objects.requireNonNull(limits, "limits"), List.copyOf(upstreams));
  }

  /** Metrics with {@link Limits#DEFAULT} and no upstream registered in advance. */
  public static PrometheusProxyMetrics create() {
    return create(Limits.DEFAULT, List.of());
  }

  @Override
  public void started(String upstream) {
    inFlight.started(upstream);
  }

  @Override
  public void ended(String upstream) {
    inFlight.ended(upstream);
  }

  @Override
  public void accept(MeteredRequest request) {
    String currency = request.currency() == null ? null : currencies.fold(request.currency());
    Series.Key key = new Series.Key(
        Operation.ofEndpoint(request.endpoint()),
        models.fold(request.model()),
        upstreams.fold(request.upstream()),
        tenants.fold(request.tenant()),
        request.errorClass(),
        currency);
    Series s = series.get(key);
    if (s == null) {
      s = series.computeIfAbsent(key, k -> new Series(families, k));
    }
    s.record(request);
  }

  @Override
  public void dropped(String where) {
    CounterDataPoint c = drops.get(Objects.requireNonNull(where, "where"));
    if (c == null) {
      String label = dropPlaces.fold(where);
      c = families.dropped.labelValues(label);
      if (!LabelCap.OTHER.equals(label) || LabelCap.OTHER.equals(where)) {
        drops.putIfAbsent(where, c);
      }
    }
    c.inc();
  }

  @Override
  public void refused(String reason) {
    CounterDataPoint c = refusals.get(reason);
    if (c == null) {
      c = refusals.computeIfAbsent(reason, r -> families.refused.labelValues(r));
    }
    c.inc();
  }

  /**
   * Exposes the ledger writer's health: {@code tokenmeter_proxy_ledger_failed_commits_total}
   * (commits that failed, each retried) and {@code tokenmeter_proxy_ledger_dropped_records_total}
   * (records the ledger could not keep: its queue was full during an outage). Read at each scrape.
   */
  public void watchLedger(java.util.function.LongSupplier failedCommits, java.util.function.LongSupplier dropped) {
    io.prometheus.metrics.config.PrometheusProperties props =
        io.prometheus.metrics.config.PrometheusProperties.builder().build();
    io.prometheus.metrics.core.metrics.CounterWithCallback.builder(props)
        .name("tokenmeter_proxy_ledger_failed_commits")
        .help("Ledger commits that failed (each is retried; a rise means the ledger is down)")
        .callback(cb -> cb.call(failedCommits.getAsLong())).register(registry);
    io.prometheus.metrics.core.metrics.CounterWithCallback.builder(props)
        .name("tokenmeter_proxy_ledger_dropped_records")
        .help("Records the ledger could not keep: its queue was full while commits failed, or it was closing")
        .callback(cb -> cb.call(dropped.getAsLong())).register(registry);
  }

  /**
   * Exposes {@code tokenmeter_proxy_budget_sync_failures_total}: rounds in which budgets could not
   * read the rest of the fleet's spend from the ledger (they kept the last values). Read at each scrape.
   */
  public void watchBudgetSync(java.util.function.LongSupplier failures) {
    io.prometheus.metrics.core.metrics.CounterWithCallback.builder(
            io.prometheus.metrics.config.PrometheusProperties.builder().build())
        .name("tokenmeter_proxy_budget_sync_failures")
        .help("Reads of the rest of the fleet's budget spend from the ledger that failed (budgets kept the last values)")
        .callback(cb -> cb.call(failures.getAsLong())).register(registry);
  }

  /**
   * Sets the share of a tenant's budget spent in its period (1 = the limit): the gauge {@code
   * tokenmeter_proxy_budget_used_ratio}. Budgets come from the configuration, so their labels are
   * not capped.
   */
  public void budgetUsed(String tenant, String unit, String period, double ratio) {
    families.budgetUsed.labelValues(tenant, unit, period).set(ratio);
  }

  /**
   * Pushes these metrics over OTLP/HTTP ({@code proxy --otlp}) until the push is closed, which
   * pushes the final values once more; names as in docs/PROXY.md, "Metrics".
   */
  public OtlpPush push(OtlpPush.Settings settings, java.time.InstantSource clock, java.io.PrintStream err) {
    return OtlpPush.start(registry, settings, clock, err);
  }

  /** The registry behind the scrape and the push. */
  PrometheusRegistry registry() {
    return registry;
  }

  /**
   * Sets an SLO's burn rate over a window: the gauge {@code tokenmeter_proxy_slo_burn_rate}. SLOs
   * come from the configuration, so their labels are not capped.
   */
  public void sloBurnRate(String slo, String window, double rate) {
    sloBurnRateGauge(slo, window).accept(rate);
  }

  /**
   * The setter of one SLO's burn-rate gauge over one window, resolved once: the client's label
   * look-up costs about 1.7 us a call (measured: 15 gauges per request took 28 us against 4 us resolved once),
   * and the burn rates change after every request.
   */
  public java.util.function.DoubleConsumer sloBurnRateGauge(String slo, String window) {
    return families.sloBurnRate.labelValues(slo, window)::set;
  }

  /**
   * Sets the drift gauges of one dimension ({@code input_tokens}, {@code output_tokens}, {@code
   * model}, {@code concurrency}): {@code tokenmeter_proxy_drift} (1 when drifted) and, when {@code
   * psi} is a number, {@code tokenmeter_proxy_drift_psi}. Dimensions are a fixed set: not capped.
   */
  public void drift(String dimension, boolean drifted, double psi) {
    families.drift.labelValues(dimension).set(drifted ? 1 : 0);
    if (!Double.isNaN(psi)) {
      families.driftPsi.labelValues(dimension).set(psi);
    }
  }

  /** Sets whether an SLO's alert fires: the gauge {@code tokenmeter_proxy_slo_alert}, 1 or 0. */
  public void sloAlert(String slo, String severity, boolean firing) {
    families.sloAlert.labelValues(slo, severity).set(firing ? 1 : 0);
  }

  @Override
  public String contentType() {
    return writer.getContentType();
  }

  @Override
  public void scrape(OutputStream out) throws IOException {
    writer.write(out, registry.scrape());
  }
}

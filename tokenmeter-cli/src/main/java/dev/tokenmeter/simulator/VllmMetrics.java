package dev.tokenmeter.simulator;

import io.prometheus.metrics.config.PrometheusProperties;
import io.prometheus.metrics.core.datapoints.DistributionDataPoint;
import io.prometheus.metrics.core.metrics.Counter;
import io.prometheus.metrics.core.metrics.CounterWithCallback;
import io.prometheus.metrics.core.metrics.GaugeWithCallback;
import io.prometheus.metrics.core.metrics.Histogram;
import io.prometheus.metrics.expositionformats.PrometheusTextFormatWriter;
import io.prometheus.metrics.model.registry.PrometheusRegistry;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.DoubleSupplier;
import org.HdrHistogram.Recorder;

/**
 * The simulator's {@code GET /metrics}: vLLM V1's metric names, types, labels ({@code model_name},
 * {@code engine}) and bucket bounds (vllm-project/vllm {@code vllm/v1/metrics/loggers.py}), computed
 * from the simulator's own state. With the engine model ({@link EngineTiming}): running and waiting
 * sequences, KV-cache usage, preemptions and prefix-cache queries and hits from the engine; with a
 * fixed schedule: responses in progress as running, nothing waiting, no KV cache.
 *
 * <p>Request histograms follow vLLM's definitions: TTFT from arrival to the first token; queue time
 * from arrival to the first iteration that schedules the request; prefill from there to the first
 * token; decode from the first token to the last; one time-per-output-token observation per token
 * after the first (the gap to the one before). Times are the tokens' actual emission times, and the
 * exact queue and prefill times are also kept unbucketed ({@link #truth()}), the known truth against
 * which a client's reading of these histograms is tested.
 *
 * <p>With the engine model on a GPU that has power data, NVIDIA's DCGM exporter series follow
 * ({@link DcgmSeries}): the power model's truth for {@code bench --gpu-metrics}.
 *
 * <p>Thread-safe: events come from every event loop, scrapes from any.
 */
final class VllmMetrics {
  private static final String[] LABELS = {"model_name", "engine"};
  private static final double[] TTFT_BUCKETS = {
    0.001, 0.005, 0.01, 0.02, 0.04, 0.06, 0.08, 0.1, 0.25, 0.5, 0.75, 1.0, 2.5, 5.0, 7.5, 10.0, 20.0, 40.0, 80.0,
    160.0, 640.0, 2560.0
  };
  private static final double[] TPOT_BUCKETS = {
    0.01, 0.025, 0.05, 0.075, 0.1, 0.15, 0.2, 0.3, 0.4, 0.5, 0.75, 1.0, 2.5, 5.0, 7.5, 10.0, 20.0, 40.0, 80.0
  };
  private static final double[] REQUEST_BUCKETS = {
    0.3, 0.5, 0.8, 1.0, 1.5, 2.0, 2.5, 5.0, 10.0, 15.0, 20.0, 30.0, 40.0, 50.0, 60.0, 120.0, 240.0, 480.0, 960.0,
    1920.0, 7680.0
  };
  private static final double NS_PER_S = 1e9;

  private final PrometheusRegistry registry = new PrometheusRegistry();
  private final PrometheusTextFormatWriter writer = PrometheusTextFormatWriter.create();
  private final AtomicInteger inProgress = new AtomicInteger();
  private final DistributionDataPoint ttft;
  private final DistributionDataPoint tpot;
  private final DistributionDataPoint queue;
  private final DistributionDataPoint prefill;
  private final DistributionDataPoint decode;
  private final DistributionDataPoint e2e;
  private final io.prometheus.metrics.core.datapoints.CounterDataPoint promptTokens;
  private final io.prometheus.metrics.core.datapoints.CounterDataPoint generationTokens;
  private final Recorder queueTruth = new Recorder(3);
  private final Recorder prefillTruth = new Recorder(3);
  private final org.HdrHistogram.Histogram queueTotal = new org.HdrHistogram.Histogram(3);
  private final org.HdrHistogram.Histogram prefillTotal = new org.HdrHistogram.Histogram(3);
  private final EngineTiming engine;

  VllmMetrics(String modelName, TimingModel timing) {
    PrometheusProperties props = PrometheusProperties.builder().build();
    String[] values = {modelName, "0"};
    EngineTiming engine = timing instanceof EngineTiming e ? e : null;
    this.engine = engine;
    gauge(props, "vllm:num_requests_running", "Number of requests in model execution batches.", values,
        engine == null ? inProgress::get : engine::running);
    gauge(props, "vllm:num_requests_waiting", "Number of requests waiting to be processed.", values,
        engine == null ? () -> 0 : engine::waiting);
    gauge(props, "vllm:kv_cache_usage_perc", "KV-cache usage. 1 means 100 percent usage.", values,
        engine == null ? () -> 0 : engine::kvCacheUsage);
    counter(props, "vllm:num_preemptions", "Cumulative number of preemption from the engine.", values,
        engine == null ? () -> 0 : engine::preemptions);
    counter(props, "vllm:prefix_cache_queries", "Prefix cache queries, in terms of number of queried tokens.", values,
        engine == null ? () -> 0 : engine::prefixCacheQueries);
    counter(props, "vllm:prefix_cache_hits", "Prefix cache hits, in terms of number of cached tokens.", values,
        engine == null ? () -> 0 : engine::prefixCacheHits);
    promptTokens = Counter.builder(props).name("vllm:prompt_tokens").help("Number of prefill tokens processed.")
        .labelNames(LABELS).withoutExemplars().register(registry).labelValues(values);
    generationTokens = Counter.builder(props).name("vllm:generation_tokens")
        .help("Number of generation tokens processed.").labelNames(LABELS).withoutExemplars().register(registry)
        .labelValues(values);
    ttft = histogram(props, "vllm:time_to_first_token_seconds", "Histogram of time to first token in seconds.",
        TTFT_BUCKETS, values);
    tpot = histogram(props, "vllm:time_per_output_token_seconds", "Histogram of time per output token in seconds.",
        TPOT_BUCKETS, values);
    e2e = histogram(props, "vllm:e2e_request_latency_seconds", "Histogram of e2e request latency in seconds.",
        REQUEST_BUCKETS, values);
    queue = histogram(props, "vllm:request_queue_time_seconds",
        "Histogram of time spent in WAITING phase for request.", REQUEST_BUCKETS, values);
    prefill = histogram(props, "vllm:request_prefill_time_seconds",
        "Histogram of time spent in PREFILL phase for request.", REQUEST_BUCKETS, values);
    decode = histogram(props, "vllm:request_decode_time_seconds",
        "Histogram of time spent in DECODE phase for request.", REQUEST_BUCKETS, values);
  }

  private void gauge(PrometheusProperties props, String name, String help, String[] values, DoubleSupplier v) {
    GaugeWithCallback.builder(props).name(name).help(help).labelNames(LABELS)
        .callback(cb -> cb.call(v.getAsDouble(), values)).register(registry);
  }

  private void counter(PrometheusProperties props, String name, String help, String[] values, DoubleSupplier v) {
    CounterWithCallback.builder(props).name(name).help(help).labelNames(LABELS)
        .callback(cb -> cb.call(v.getAsDouble(), values)).register(registry);
  }

  private DistributionDataPoint histogram(PrometheusProperties props, String name, String help, double[] bounds,
      String[] values) {
    return Histogram.builder(props).name(name).help(help).labelNames(LABELS).classicOnly()
        .classicUpperBounds(bounds).withoutExemplars().register(registry).labelValues(values);
  }

  /** A response started. */
  void started() {
    inProgress.incrementAndGet();
  }

  /** Token 0 of a request that arrived at {@code arrivalNanos} left at {@code atNanos}. */
  void firstToken(GenerationRequest r, long atNanos) {
    ttft.observe((atNanos - r.arrivalNanos()) / NS_PER_S);
    promptTokens.inc(r.promptTokens());
    generationTokens.inc();
  }

  /** A token after the first left {@code gapNanos} after the one before it. */
  void nextToken(long gapNanos) {
    tpot.observe(gapNanos / NS_PER_S);
    generationTokens.inc();
  }

  /**
   * A response ended. {@code scheduledNanos}, {@code firstNanos} and {@code lastNanos} are when it
   * was first scheduled and its first and last tokens left; -1 when it produced no token.
   */
  void ended(GenerationRequest r, long scheduledNanos, long firstNanos, long lastNanos, long endNanos) {
    inProgress.decrementAndGet();
    if (firstNanos < 0) {
      return;
    }
    long scheduled = Math.max(r.arrivalNanos(), Math.min(scheduledNanos < 0 ? r.arrivalNanos() : scheduledNanos,
        firstNanos));
    long queueNanos = scheduled - r.arrivalNanos();
    long prefillNanos = firstNanos - scheduled;
    queue.observe(queueNanos / NS_PER_S);
    prefill.observe(prefillNanos / NS_PER_S);
    decode.observe((lastNanos - firstNanos) / NS_PER_S);
    e2e.observe((endNanos - r.arrivalNanos()) / NS_PER_S);
    queueTruth.recordValue(queueNanos);
    prefillTruth.recordValue(prefillNanos);
  }

  /** The exact queue and prefill times so far (copies). */
  synchronized SimServer.PhaseTruth truth() {
    queueTotal.add(queueTruth.getIntervalHistogram());
    prefillTotal.add(prefillTruth.getIntervalHistogram());
    return new SimServer.PhaseTruth(queueTotal.copy(), prefillTotal.copy());
  }

  /** The exposition's content type (Prometheus text 0.0.4). */
  String contentType() {
    return writer.getContentType();
  }

  /** The metrics now, in Prometheus text format. */
  byte[] scrape() {
    ByteArrayOutputStream out = new ByteArrayOutputStream(8192);
    try {
      writer.write(out, registry.scrape());
      EngineTiming.GpuNow gpus = engine == null ? null : engine.gpuNow();
      if (gpus != null) {
        out.write(DcgmSeries.text(gpus).getBytes(java.nio.charset.StandardCharsets.UTF_8));
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return out.toByteArray();
  }
}

package dev.tokenmeter.telemetry;

import dev.tokenmeter.core.loadgen.RequestSink;
import dev.tokenmeter.core.metrics.RequestMetrics;
import dev.tokenmeter.core.request.ErrorClass;
import io.prometheus.metrics.config.PrometheusProperties;
import io.prometheus.metrics.core.datapoints.DistributionDataPoint;
import io.prometheus.metrics.core.metrics.Counter;
import io.prometheus.metrics.core.metrics.GaugeWithCallback;
import io.prometheus.metrics.core.metrics.Histogram;
import io.prometheus.metrics.expositionformats.PrometheusTextFormatWriter;
import io.prometheus.metrics.model.registry.PrometheusRegistry;
import io.prometheus.metrics.model.snapshots.Unit;
import java.io.IOException;
import java.io.OutputStream;
import java.io.PrintStream;
import java.time.InstantSource;
import java.util.Map;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.function.IntSupplier;

/**
 * A bench run's live client metrics under the OpenTelemetry GenAI names (docs/METRICS.md, "Live
 * export"): token usage, operation duration, time to first chunk, time per output chunk, TPOT,
 * per-user decode speed, requests by outcome, requests in flight; labelled by stage, load, lane
 * (the variant) and model. One Prometheus registry, served by {@link #serve} and pushed by {@link
 * #push}.
 *
 * <pre>{@code
 * BenchMetrics metrics = BenchMetrics.create();
 * ScrapeServer http = metrics.serve("127.0.0.1", 9464);
 * RequestSink sink = metrics.sink(stage, true, jsonl);  // per stage and lane, on the event loop
 * metrics.inFlight(stage, () -> recorder.inFlight());
 * ... the run ...
 * metrics.drain();                                       // every handed request recorded
 * }</pre>
 *
 * <p>Thread-safe. The sink's {@code accept} runs on the event loop and only hands the request's
 * (immutable) {@link RequestMetrics} to a recording thread of its own through a bounded queue, one
 * {@code offer} and no lock held while histograms are updated; a full queue drops the request from
 * the metrics and counts it ({@code tokenmeter_bench_records_dropped_total}), it never waits. A run
 * without {@code --metrics-port} or {@code --otlp} makes none of this.
 */
public final class BenchMetrics implements AutoCloseable {
  /** Requests waiting to be recorded; 65,536 is several seconds of the fastest run measured. */
  static final int QUEUE_CAPACITY = 65_536;

  /**
   * gen_ai.client.operation.time_to_first_chunk and time_per_output_chunk: the conventions'
   * boundaries (10 ms doubling to 81.92 s) with 1, 2.5 and 5 ms added below them, as for TPOT: a
   * streaming server's chunks come 5-15 ms apart, all inside the conventions' first bucket.
   */
  static final double[] CHUNK_BUCKETS_SECONDS = {
    0.001, 0.0025, 0.005, 0.01, 0.02, 0.04, 0.08, 0.16, 0.32, 0.64, 1.28, 2.56, 5.12, 10.24, 20.48, 40.96, 81.92
  };

  static final String STAGE = "stage";
  static final String LOAD = "load";
  static final String LANE = "lane";
  static final String PHASE = "phase";

  /**
   * The labels of one stage of one lane.
   *
   * @param operation {@code gen_ai.operation.name}: chat, text_completion, generate_content
   * @param model the model asked for, empty when none
   * @param stage the stage's number, from 1
   * @param load the stage's load, as the console names it ({@code c=10}, {@code rate=2/s poisson})
   * @param lane the variant's name, empty for a plain run
   */
  public record Stage(String operation, String model, int stage, String load, String lane) {
    String[] labels() {
      return new String[] {operation, model == null ? "" : model, Integer.toString(stage), load,
        lane == null ? "" : lane};
    }
  }

  private final PrometheusRegistry registry = new PrometheusRegistry();
  private final Map<Stage, IntSupplier> inFlight = new ConcurrentHashMap<>();
  private final ThreadPoolExecutor recorder;
  private final Histogram tokenUsage;
  private final Histogram duration;
  private final Histogram timeToFirstChunk;
  private final Histogram timePerOutputChunk;
  private final Histogram timePerOutputToken;
  private final Histogram decodeSpeed;
  private final Counter requests;
  private final Counter dropped;

  private BenchMetrics() {
    PrometheusProperties props = PrometheusProperties.builder().build();
    String op = MetricFamilies.OPERATION;
    String model = MetricFamilies.MODEL;
    tokenUsage = MetricFamilies.histogram(props, "gen_ai_client_token_usage", null, MetricFamilies.TOKEN_BUCKETS,
        "Tokens per request: input of completed requests, output of every request (gen_ai.client.token.usage)",
        op, model, STAGE, LOAD, LANE, MetricFamilies.TOKEN_TYPE).register(registry);
    duration = MetricFamilies.histogram(props, "gen_ai_client_operation_duration", Unit.SECONDS,
        MetricFamilies.DURATION_BUCKETS_SECONDS, "E2E latency, done - sent, every request (error_type when it failed)",
        op, model, STAGE, LOAD, LANE, MetricFamilies.ERROR_TYPE).register(registry);
    timeToFirstChunk = MetricFamilies.histogram(props, "gen_ai_client_operation_time_to_first_chunk", Unit.SECONDS,
        CHUNK_BUCKETS_SECONDS, "TTFT, first token - sent, completed streamed requests",
        op, model, STAGE, LOAD, LANE).register(registry);
    timePerOutputChunk = MetricFamilies.histogram(props, "gen_ai_client_operation_time_per_output_chunk",
        Unit.SECONDS, CHUNK_BUCKETS_SECONDS, "Gap between consecutive chunks (ITL per chunk), completed streamed requests",
        op, model, STAGE, LOAD, LANE).register(registry);
    timePerOutputToken = MetricFamilies.histogram(props, "gen_ai_server_time_per_output_token", Unit.SECONDS,
        MetricFamilies.TPOT_BUCKETS_SECONDS, "TPOT, (last token - first token) / (n - 1), completed requests",
        op, model, STAGE, LOAD, LANE).register(registry);
    decodeSpeed = MetricFamilies.histogram(props, "tokenmeter_bench_decode_speed_per_second", null,
        MetricFamilies.DECODE_SPEED_BUCKETS, "Per-user decode speed 1/TPOT in tokens per second, completed requests",
        op, model, STAGE, LOAD, LANE).register(registry);
    requests = Counter.builder(props).name("tokenmeter_bench_requests")
        .help("Requests that ended, by phase and outcome class (error_type empty when completed)")
        .labelNames(op, model, STAGE, LOAD, LANE, PHASE, MetricFamilies.ERROR_TYPE).withoutExemplars()
        .register(registry);
    dropped = Counter.builder(props).name("tokenmeter_bench_records_dropped")
        .help("Requests left out of these metrics because the recording queue was full").withoutExemplars()
        .register(registry);
    GaugeWithCallback.builder(props).name("tokenmeter_bench_active_requests")
        .help("Requests in flight (sent, not ended) in each stage and lane")
        .labelNames(op, model, STAGE, LOAD, LANE)
        .callback(cb -> inFlight.forEach((s, n) -> cb.call(n.getAsInt(), s.labels())))
        .register(registry);
    recorder = new ThreadPoolExecutor(1, 1, 0, TimeUnit.MILLISECONDS, new ArrayBlockingQueue<>(QUEUE_CAPACITY),
        r -> {
          Thread t = new Thread(r, "tokenmeter-metrics-record");
          t.setDaemon(true);
          return t;
        },
        (task, pool) -> dropped.inc());
  }

  /** Empty metrics with their recording thread. */
  public static BenchMetrics create() {
    return new BenchMetrics();
  }

  /**
   * {@code inner}, also handing every request to these metrics under {@code stage}'s labels.
   *
   * @param streaming whether responses stream, so the chunk metrics apply
   */
  public RequestSink sink(Stage stage, boolean streaming, RequestSink inner) {
    String[] labels = stage.labels();
    return (t, m) -> {
      inner.accept(t, m);
      recorder.execute(() -> record(labels, streaming, m));
    };
  }

  /** Reports {@code now}'s value as the requests in flight of {@code stage} at every collection. */
  public void inFlight(Stage stage, IntSupplier now) {
    inFlight.put(stage, now);
  }

  /** Serves these metrics at {@code http://host:port/metrics}. */
  public ScrapeServer serve(String host, int port) {
    return ScrapeServer.start(registry, host, port);
  }

  /** Pushes these metrics over OTLP/HTTP until the push is closed. */
  public OtlpPush push(OtlpPush.Settings settings, InstantSource clock, PrintStream err) {
    return OtlpPush.start(registry, settings, clock, err);
  }

  /** Waits (10 s at most) until every request handed so far is recorded, and stops recording. */
  public void drain() throws InterruptedException {
    recorder.shutdown();
    recorder.awaitTermination(10, TimeUnit.SECONDS);
  }

  /** Requests dropped because the queue was full. */
  public long dropped() {
    return (long) dropped.get();
  }

  /** The registry behind the scrape and the push. */
  PrometheusRegistry registry() {
    return registry;
  }

  /** Writes the exposition (Prometheus text format 0.0.4) to {@code out}. */
  public void scrape(OutputStream out) throws IOException {
    PrometheusTextFormatWriter.create().write(out, registry.scrape());
  }

  @Override
  public void close() {
    recorder.shutdownNow();
  }

  private void record(String[] l, boolean streaming, RequestMetrics m) {
    String error = m.succeeded() ? "" : m.errorClass().wireName();
    // tokenmeter's own cancellation (stage end, Ctrl-C) is neither completed nor failed, as in
    // summary.json: no request count, no duration; the tokens that arrived still count
    boolean cancelled = m.errorClass() == ErrorClass.CANCELLED;
    if (!cancelled) {
      requests.labelValues(l[0], l[1], l[2], l[3], l[4], m.phase().wireName(), error).inc();
    }
    if (m.succeeded() || m.outputTokens() > 0) { // a failure's tokens: those that arrived before it
      tokenUsage.labelValues(l[0], l[1], l[2], l[3], l[4], "output").observe(m.outputTokens());
    }
    if (!cancelled && m.e2eNanos() >= 0) {
      duration.labelValues(l[0], l[1], l[2], l[3], l[4], error).observe(seconds(m.e2eNanos()));
    }
    if (!m.succeeded()) {
      return;
    }
    if (m.inputTokens() >= 0) {
      tokenUsage.labelValues(l[0], l[1], l[2], l[3], l[4], "input").observe(m.inputTokens());
    }
    if (!m.tpotUndefined()) {
      timePerOutputToken.labelValues(l).observe(m.tpotNanos() / 1e9);
      decodeSpeed.labelValues(l).observe(m.decodeTokensPerSecond());
    }
    if (streaming) {
      if (m.ttftNanos() >= 0) {
        timeToFirstChunk.labelValues(l).observe(seconds(m.ttftNanos()));
      }
      DistributionDataPoint gaps = timePerOutputChunk.labelValues(l);
      m.forEachItlPerChunk((gapNanos, count) -> gaps.observe(seconds(gapNanos)));
    }
  }

  private static double seconds(long nanos) {
    return nanos / 1e9;
  }
}

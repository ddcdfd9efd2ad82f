package dev.tokenmeter.bench;

import dev.tokenmeter.core.request.ErrorClass;
import dev.tokenmeter.core.request.TokenCountSource;
import dev.tokenmeter.ledger.MeteredRequest;
import dev.tokenmeter.telemetry.PrometheusProxyMetrics;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Threads;
import org.openjdk.jmh.annotations.Warmup;

/**
 * The proxy's metrics: {@code accept()} of one finished request (all its histograms and counters),
 * a {@code started()}/{@code ended()} pair (the stream path's share), and one scrape of 50 tenants
 * x 5 models on one upstream, every series populated (about 36,000 exposition lines). Scores are
 * nanoseconds per operation.
 *
 * <pre>
 * ./mvnw -q -o -Pjmh package -DskipTests
 * java -jar target/tokenmeter-jmh.jar ProxyMetrics -f 1 -wi 3 -w 1 -i 5 -r 1
 * </pre>
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(1)
public class ProxyMetricsBenchmark {
  static final int TENANTS = 50;
  static final int MODELS = 5;

  private PrometheusProxyMetrics metrics;
  private MeteredRequest[] requests;
  private final ByteArrayOutputStream scrapeBuffer = new ByteArrayOutputStream(8 << 20);

  /** Each thread walks the requests from its own place. */
  @State(Scope.Thread)
  public static class Cursor {
    int next;
  }

  @Setup
  public void setUp() throws IOException {
    metrics = PrometheusProxyMetrics.create(PrometheusProxyMetrics.Limits.DEFAULT, List.of("a"));
    requests = new MeteredRequest[TENANTS * MODELS];
    for (int t = 0; t < TENANTS; t++) {
      for (int m = 0; m < MODELS; m++) {
        requests[t * MODELS + m] = request("tenant-" + t, "model-" + m, 300 + t, 200 + m * 40);
      }
    }
    for (MeteredRequest r : requests) {
      metrics.accept(r); // every series exists before measuring
    }
    scrape();
    System.out.printf("%nscrape of %d tenants x %d models: %,d bytes, %,d lines%n", TENANTS, MODELS,
        scrapeBuffer.size(), scrapeBuffer.toString().lines().count());
  }

  @Benchmark
  public void accept(Cursor c) {
    metrics.accept(requests[c.next++ % requests.length]);
  }

  @Benchmark
  @Threads(2)
  public void acceptTwoThreads(Cursor c) {
    metrics.accept(requests[c.next++ % requests.length]);
  }

  @Benchmark
  public void startedEnded() {
    metrics.started("a");
    metrics.ended("a");
  }

  @Benchmark
  @OutputTimeUnit(TimeUnit.MICROSECONDS)
  public int scrape() throws IOException {
    scrapeBuffer.reset();
    metrics.scrape(scrapeBuffer);
    return scrapeBuffer.size();
  }

  private static MeteredRequest request(String tenant, String model, int in, int out) {
    long ms = 1_000_000L;
    return new MeteredRequest("r", 0L, tenant, model, "a", "/v1/chat/completions", true, 200,
        (ErrorClass) null, null, "stop", in, out, TokenCountSource.USAGE, 0, 128,
        150_000L, 180 * ms, 12e6, 180 * ms + out * 12 * ms, 11 * ms, 30 * ms, 60 * ms, out, 3,
        0.0012, "USD");
  }
}

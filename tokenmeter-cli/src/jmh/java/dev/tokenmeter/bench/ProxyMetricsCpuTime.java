package dev.tokenmeter.bench;

import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;

/**
 * The {@link ProxyMetricsBenchmark} workloads in thread CPU time instead of wall time, which a
 * shared machine's neighbours disturb far less (see {@link SseParseCpuTime}).
 *
 * <pre>
 * java -cp target/tokenmeter-jmh.jar dev.tokenmeter.bench.ProxyMetricsCpuTime [seconds-per-round]
 * </pre>
 *
 * Prints CPU nanoseconds per accept() and per started()/ended() pair, and CPU milliseconds per
 * scrape of 50 tenants x 5 models, over several rounds; the first include JIT warm-up.
 */
public final class ProxyMetricsCpuTime {

  private ProxyMetricsCpuTime() {}

  public static void main(String[] args) throws IOException {
    double seconds = args.length > 0 ? Double.parseDouble(args[0]) : 1.0;
    ProxyMetricsBenchmark bench = new ProxyMetricsBenchmark();
    bench.setUp();
    ProxyMetricsBenchmark.Cursor cursor = new ProxyMetricsBenchmark.Cursor();
    ThreadMXBean threads = ManagementFactory.getThreadMXBean();
    for (int round = 0; round < 6; round++) {
      double accept = cpuNanosPerOp(threads, seconds, 1000, () -> bench.accept(cursor));
      double pair = cpuNanosPerOp(threads, seconds, 1000, bench::startedEnded);
      double scrape = cpuNanosPerOp(threads, seconds, 1, () -> {
        try {
          bench.scrape();
        } catch (IOException e) {
          throw new java.io.UncheckedIOException(e);
        }
      });
      System.out.printf("round %d:  accept %.0f ns  started+ended %.1f ns  scrape %.1f ms%n",
          round, accept, pair, scrape / 1e6);
    }
  }

  private static double cpuNanosPerOp(ThreadMXBean threads, double seconds, int batch, Runnable op) {
    long ops = 0;
    long cpuStart = threads.getCurrentThreadCpuTime();
    long wallStart = System.nanoTime();
    while (System.nanoTime() - wallStart < (long) (seconds * 1e9)) {
      for (int i = 0; i < batch; i++) {
        op.run();
      }
      ops += batch;
    }
    return (threads.getCurrentThreadCpuTime() - cpuStart) / (double) ops;
  }
}

package dev.tokenmeter.bench;

import com.sun.management.OperatingSystemMXBean;
import dev.tokenmeter.core.request.ErrorClass;
import dev.tokenmeter.core.request.TokenCountSource;
import dev.tokenmeter.core.time.Ticker;
import dev.tokenmeter.ledger.Ledger;
import dev.tokenmeter.ledger.LedgerWriter;
import dev.tokenmeter.ledger.Ledgers;
import dev.tokenmeter.ledger.MeteredRequest;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * Rows per second the ledger writer sustains: each round offers N records to a fresh ledger (queue
 * large enough to take them all at once, so none is dropped) and times from the first {@code
 * accept} to {@code close()} returning, when every row is committed; also the process CPU time per
 * row. Default batches (4,096 rows, 200 ms), SQLite in WAL mode with synchronous=FULL.
 *
 * <pre>
 * java -cp target/tokenmeter-jmh.jar dev.tokenmeter.bench.LedgerWriterThroughput [rows-per-round] [ledger]
 * </pre>
 *
 * {@code ledger} is a folder for SQLite files (default: a temporary one) or a jdbc:postgresql: URL.
 * The first rounds include JIT warm-up; read the last ones.
 */
public final class LedgerWriterThroughput {
  private LedgerWriterThroughput() {}

  public static void main(String[] args) throws Exception {
    int rows = args.length > 0 ? Integer.parseInt(args[0]) : 200_000;
    String where = args.length > 1 ? args[1] : Files.createTempDirectory("ledger-bench").toString();
    OperatingSystemMXBean os = (OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean();
    MeteredRequest[] records = new MeteredRequest[rows];
    for (int i = 0; i < rows; i++) {
      records[i] = record(i);
    }
    LedgerWriter.Settings settings =
        new LedgerWriter.Settings(rows, LedgerWriter.Settings.DEFAULTS.flushIntervalNanos(),
            LedgerWriter.Settings.DEFAULTS.maxBatchRows(), LedgerWriter.Settings.DEFAULTS.closeTimeoutNanos());
    for (int round = 0; round < 5; round++) {
      String target = where.startsWith("jdbc:") ? where : Path.of(where, "round-" + round + ".db").toString();
      Ledger ledger = Ledgers.open(target);
      long cpuStart = os.getProcessCpuTime();
      long start = System.nanoTime();
      LedgerWriter w = ledger.writer(settings, Ticker.system());
      for (MeteredRequest r : records) {
        w.accept(r);
      }
      w.close();
      long wallNanos = System.nanoTime() - start;
      long cpuNanos = os.getProcessCpuTime() - cpuStart;
      System.out.printf(
          "round %d: %d rows in %.2f s = %.0f rows/s, %.1f CPU-us/row, dropped %d%n",
          round, w.written(), wallNanos / 1e9, w.written() / (wallNanos / 1e9), cpuNanos / 1e3 / rows, w.dropped());
    }
  }

  private static MeteredRequest record(int i) {
    boolean failed = i % 50 == 0;
    return new MeteredRequest(
        "req-" + i, 1_764_000_000_000L + i, "tenant-" + (i % 20), "llama-3.1-8b", "vllm-" + (i % 2),
        "/v1/chat/completions", true, failed ? 500 : 200, failed ? ErrorClass.HTTP_5XX : null,
        failed ? "HTTP 500: upstream error" : null, failed ? null : "stop", 512 + i % 100, 256 + i % 50,
        TokenCountSource.USAGE, i % 10, 128, 80_000, 45_000_000L + i, 18_500_000.5, 4_800_000_000L,
        17_000_000L, 40_000_000L, 95_000_000L, 250, i % 64, 0.000_31, "USD");
  }
}

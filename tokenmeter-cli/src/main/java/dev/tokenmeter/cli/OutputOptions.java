package dev.tokenmeter.cli;

import dev.tokenmeter.core.loadgen.Timeouts;
import dev.tokenmeter.run.EventLoops;
import java.nio.file.Path;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import picocli.CommandLine.Option;

/** Timeouts, the client's event loops and where results go. */
final class OutputOptions {
  private static final DateTimeFormatter FOLDER =
      DateTimeFormatter.ofPattern("yyyyMMdd'T'HHmmss'Z'").withZone(ZoneOffset.UTC);

  @Option(names = "--timeout-first-token", paramLabel = "DURATION", description = "Fail a request with no token this long after the send (default: ${DEFAULT-VALUE}; 0 = off).")
  String timeoutFirstToken = "60s";

  @Option(names = "--timeout-idle", paramLabel = "DURATION", description = "Fail a stream silent this long (default: ${DEFAULT-VALUE}; 0 = off).")
  String timeoutIdle = "30s";

  @Option(names = "--timeout-total", paramLabel = "DURATION", description = "Fail a request longer than this (default: ${DEFAULT-VALUE}; 0 = off).")
  String timeoutTotal = "10m";

  @Option(names = "--fail-fast", paramLabel = "N", description = "Stop a stage when its first N requests all fail the same way (same HTTP status and message; docs/RELIABILITY.md) (default: ${DEFAULT-VALUE}; 0 = never).")
  int failFast = 10;

  @Option(names = "--out", paramLabel = "DIR", description = "Results folder (default: results/<UTC timestamp>/).")
  Path out;

  @Option(names = "--raw-times", description = "Add raw clock readings (sent_ns, chunk_ns[], System.nanoTime) to requests.jsonl, to compare with a server's ground truth.")
  boolean rawTimes;

  @Option(names = {"-q", "--quiet"}, description = "No live progress line.")
  boolean quiet;

  @Option(names = "--event-loops", paramLabel = "N|auto", description = "Threads that read the sockets: auto is one per 256 streams of the largest stage, at most one per core (two on one core) (default: ${DEFAULT-VALUE}).")
  String eventLoops = "auto";

  /**
   * {@code --event-loops} for lanes of at most {@code streams} requests in flight each (0 when the
   * load does not bound them), on this machine's cores.
   */
  int eventLoops(int streams) {
    try {
      return EventLoops.resolve(eventLoops, streams, Runtime.getRuntime().availableProcessors());
    } catch (IllegalArgumentException e) {
      throw new UsageException(e.getMessage());
    }
  }

  Timeouts timeouts() {
    return new Timeouts(
        Durations.parseNanos("--timeout-first-token", timeoutFirstToken),
        Durations.parseNanos("--timeout-idle", timeoutIdle),
        Durations.parseNanos("--timeout-total", timeoutTotal));
  }

  /** {@code --fail-fast}, checked. */
  int failFast() {
    if (failFast < 0) {
      throw new UsageException("--fail-fast must be 0 (never stop early) or a number of requests, got " + failFast);
    }
    return failFast;
  }

  Path outDir(Instant startedAt) {
    return out != null ? out : Path.of("results", FOLDER.format(startedAt));
  }
}

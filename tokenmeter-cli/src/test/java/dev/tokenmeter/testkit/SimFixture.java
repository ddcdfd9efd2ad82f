package dev.tokenmeter.testkit;

import dev.tokenmeter.simulator.EmissionRecord;
import dev.tokenmeter.simulator.Faults;
import dev.tokenmeter.simulator.OutputLengths;
import dev.tokenmeter.simulator.SimConfig;
import dev.tokenmeter.simulator.SimServer;
import dev.tokenmeter.simulator.TimingModel;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentLinkedQueue;

/**
 * An in-process {@link SimServer} on a free 127.0.0.1 port with a ground-truth sink: every
 * generation's {@link EmissionRecord} is kept, keyed by the client's {@code X-Request-Id}.
 *
 * <pre>{@code
 * try (SimFixture sim = SimFixture.start(SimFixture.config(50, 20))) {
 *   StageRun run = StageKit.run(StageKit.stage(sim).closed(1).requests(3));
 *   List<Joined> joined = run.join(sim);
 * }
 * }</pre>
 *
 * <p>Thread-safe: the sink runs on the server's event loop, readers on the test thread.
 */
public final class SimFixture implements AutoCloseable {
  private static final long MS = 1_000_000L;

  private final SimServer server;
  private final ConcurrentLinkedQueue<EmissionRecord> records;

  private SimFixture(SimServer server, ConcurrentLinkedQueue<EmissionRecord> records) {
    this.server = server;
    this.records = records;
  }

  /**
   * A configuration with TTFT {@code ttftMillis} and ITL {@code itlMillis} (fixed), every other
   * field at its default; the fixture adds its sink.
   */
  public static SimConfig.Builder config(long ttftMillis, long itlMillis) {
    return SimConfig.builder()
        .port(0)
        .timing(TimingModel.fixed(ttftMillis * MS, itlMillis * MS))
        // Natural lengths only matter without ignore_eos; keep them short and known.
        .outputLengths(OutputLengths.fixed(8))
        .faults(Faults.none());
  }

  /** Starts a server from {@code builder}, with this fixture's ground-truth sink added. */
  public static SimFixture start(SimConfig.Builder builder) {
    ConcurrentLinkedQueue<EmissionRecord> records = new ConcurrentLinkedQueue<>();
    SimServer server = SimServer.start(builder.groundTruthSink(records::add).build());
    return new SimFixture(server, records);
  }

  public SimServer server() {
    return server;
  }

  /** {@code http://127.0.0.1:PORT}. */
  public String baseUrl() {
    return server.baseUrl();
  }

  /** Every record received so far, in the order responses ended. */
  public List<EmissionRecord> records() {
    return new ArrayList<>(records);
  }

  /** Records by {@link EmissionRecord#clientRequestId()}; a duplicate header fails. */
  public Map<String, EmissionRecord> recordsById() {
    Map<String, EmissionRecord> byId = new HashMap<>();
    for (EmissionRecord r : records) {
      if (r.clientRequestId() != null && byId.put(r.clientRequestId(), r) != null) {
        throw new AssertionError("two responses with X-Request-Id " + r.clientRequestId());
      }
    }
    return byId;
  }

  /**
   * Waits until every generation the server accepted has delivered its record (a response the
   * client cut reports when the server notices the close), at most {@code timeoutMillis}.
   *
   * @throws AssertionError when records are still missing after the timeout
   */
  public void awaitAllRecords(long timeoutMillis) {
    long deadline = System.nanoTime() + timeoutMillis * MS;
    while (records.size() < server.stats().generations()) {
      if (System.nanoTime() > deadline) {
        throw new AssertionError(
            records.size() + " records for " + server.stats().generations() + " generations");
      }
      try {
        Thread.sleep(5); // a true socket test: waiting for the server to notice a close
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new AssertionError("interrupted", e);
      }
    }
  }

  /** A 127.0.0.1 port nothing listens on (bound, then released: connecting is refused). */
  public static int closedPort() {
    try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      return s.getLocalPort();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  @Override
  public void close() {
    server.close();
  }
}

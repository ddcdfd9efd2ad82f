package dev.tokenmeter.ledger;

/**
 * Where the proxy's record path hands finished requests: the ledger writer, the metrics, a test.
 * The proxy's counterpart of bench's {@code core.loadgen.RequestSink}, which takes a finished
 * request's timeline on the engine's loop.
 *
 * <p>Implementations must return quickly and never block the caller: a sink that does slow work
 * (disk, database) queues the record on a bounded queue and counts what it had to drop. Called from
 * the proxy's record thread(s), possibly concurrently: implementations are thread-safe.
 */
@FunctionalInterface
public interface MeteredRequestSink {
  /** Takes one finished request. Must not throw for a full queue: count the drop instead. */
  void accept(MeteredRequest request);
}

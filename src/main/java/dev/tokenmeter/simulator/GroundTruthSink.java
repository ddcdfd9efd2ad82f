package dev.tokenmeter.simulator;

/**
 * Receives the server's ground truth: one {@link EmissionRecord} per generation request, when its
 * response ends (completed, failed by a fault, or cut by the client).
 *
 * <p>Called on the server's event-loop thread; with several event loops, from several threads at
 * once, so implementations must be thread-safe. Keep it cheap (append to a concurrent queue):
 * time spent here delays other connections' tokens. Requests rejected before generation (400,
 * 404) produce no record.
 */
@FunctionalInterface
public interface GroundTruthSink {

  /** Accepts the record of one finished response. Must not throw. */
  void accept(EmissionRecord record);
}

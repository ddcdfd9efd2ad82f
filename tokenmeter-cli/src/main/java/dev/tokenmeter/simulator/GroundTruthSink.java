package dev.tokenmeter.simulator;

/**
 * Receives the server's ground truth: one {@link EmissionRecord} per generation request, when its
 * response ends (completed, failed by a fault, or cut by the client).
 *
 * <p>Called on the server's event-loop thread; with several event loops, from several threads at
 * once, so implementations must be thread-safe. Keep it cheap (append to a concurrent queue):
 * time spent here delays other connections' tokens. Requests rejected before generation (400,
 * 404) produce no record. A record is delivered before the last bytes of its response are
 * written, so a client that has read a response to its end finds its record delivered; a record
 * of a response the client cut arrives when the server notices the close.
 */
@FunctionalInterface
public interface GroundTruthSink {

  /** Accepts the record of one finished response. Must not throw. */
  void accept(EmissionRecord record);
}

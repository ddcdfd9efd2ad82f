package dev.tokenmeter.core.loadgen;

import dev.tokenmeter.core.request.Outcome;

/** A request in flight. */
public interface Exchange {

  /**
   * Ends the exchange now with {@code outcome} (a timeout or a cancellation): the connection is
   * closed, never reused, and the listener's {@code end} is called with this outcome unless the
   * exchange already ended. Call on the endpoint's loop.
   */
  void abort(Outcome outcome);
}

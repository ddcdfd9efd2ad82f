package dev.tokenmeter.core.loadgen;

import dev.tokenmeter.core.request.Outcome;
import dev.tokenmeter.core.request.StreamItem;

/** Receives what happens to one exchange. All calls come from the endpoint's loop, in order. */
public interface ExchangeListener {

  /** A new connection was opened for this exchange (not called when one was reused). */
  void connected(long connectStartNanos, long connectedNanos);

  /** The request's last byte was written to the socket. */
  void sent(long nanos);

  /** Response headers arrived. */
  void headers(int status, long nanos);

  /** A stream item arrived, timestamped at the socket read that delivered it. */
  void item(StreamItem item, long nanos);

  /** The exchange is over. Called exactly once, last. */
  void end(Outcome outcome, long nanos);
}

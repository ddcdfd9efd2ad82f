package dev.tokenmeter.client;

/**
 * When a request may be sent again on a fresh connection: the one rule of bench's exchanges and of
 * the proxy's. One per request; confined to its connection's event loop.
 *
 * <p>A keep-alive connection taken from the {@link KeepAlivePool} may have been closed by the
 * server while it sat idle. When the write of the request then fails and no byte of a response
 * arrived, nothing reached the server: the request is sent again, once, on a fresh connection
 * (never from the pool, which may hold more connections closed the same way). A write that fails on
 * a fresh connection, or after a response began, is a failure of the request: sending it again
 * could make the server do the work twice.
 *
 * <pre>{@code
 * resend.sending(pooled);             // before each write of the request
 * resend.responded();                 // at the response's head
 * if (resend.afterWriteFailure()) ... // close, connect fresh, write again; else fail
 * }</pre>
 */
public final class StaleResend {
  private boolean pooled;
  private boolean responded;

  /** The request is about to be written on a connection that came from the pool ({@code pooled}) or was just opened. */
  public void sending(boolean pooled) {
    this.pooled = pooled;
    this.responded = false;
  }

  /** The response's first bytes (its head) arrived. */
  public void responded() {
    responded = true;
  }

  /** Whether a response began on the current connection. */
  public boolean anyResponse() {
    return responded;
  }

  /**
   * The write of the request failed: true when it is to be sent again on a fresh connection (a
   * pooled connection, no response yet), at most once per {@link #sending} on a pooled connection.
   */
  public boolean afterWriteFailure() {
    if (pooled && !responded) {
      pooled = false;
      return true;
    }
    return false;
  }
}

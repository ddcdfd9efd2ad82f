package dev.tokenmeter.core.loadgen;

/**
 * Client-side deadlines, in nanoseconds; 0 disables one.
 *
 * @param firstTokenNanos from the send to the first generated token
 * @param idleNanos longest gap between stream items once the response started
 * @param totalNanos from the send to the end of the exchange
 */
public record Timeouts(long firstTokenNanos, long idleNanos, long totalNanos) {
  public Timeouts {
    if (firstTokenNanos < 0 || idleNanos < 0 || totalNanos < 0) {
      throw new IllegalArgumentException("timeouts must not be negative");
    }
  }
}

package dev.tokenmeter.core.request;

/**
 * Where a request sits in a conversation: its session's id (unique within a stage, counting up from
 * 0 in the order sessions started) and its turn (1 for the session's first request).
 */
public record SessionTurn(long session, int turn) {
  public SessionTurn {
    if (session < 0) {
      throw new IllegalArgumentException("session must not be negative, got " + session);
    }
    if (turn < 1) {
      throw new IllegalArgumentException("turn must be at least 1, got " + turn);
    }
  }
}

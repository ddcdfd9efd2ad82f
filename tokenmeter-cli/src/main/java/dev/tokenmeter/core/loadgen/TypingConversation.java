package dev.tokenmeter.core.loadgen;

/**
 * A {@link Conversation} of a user typing ({@code --profile completion}): its turns are the
 * requests of one burst of keystrokes, each sent {@link #keystrokeNanos} after the one before it
 * whether or not that one ended; a request still in flight when the next keystroke's request goes
 * out is superseded: the engine cancels it (the client hangs up). The burst's last request is
 * awaited as any turn is; then the session ends and, in a closed loop, the user pauses {@link
 * #pauseNanos} before the next burst. Loop-confined, as every conversation.
 *
 * <p>Cancelled requests (superseded, or past {@link #cancelAfterNanos}) are the user's doing, not
 * the server's failure: they are counted apart, never as errors (docs/METRICS.md, "Code
 * completion").
 */
public interface TypingConversation extends Conversation {

  /** The reason a superseded request's {@code Cancelled} outcome carries. */
  String SUPERSEDED = dev.tokenmeter.core.request.Outcome.Cancelled.SUPERSEDED;

  /** The reason a request cancelled by the {@code --cancel-after} rule carries. */
  String CANCEL_AFTER = dev.tokenmeter.core.request.Outcome.Cancelled.CANCEL_AFTER;

  /**
   * Called by the engine right after {@link #next} returned a request: the gap, in nanoseconds,
   * after which the burst's next request is sent (superseding this one if it is still in flight),
   * or -1 when this request is the burst's last.
   */
  long keystrokeNanos();

  /**
   * Called right after {@link #next} returned a request: after how many nanoseconds the engine
   * cancels it if it has not ended, 0 for no such rule.
   */
  long cancelAfterNanos();

  /** Called once the session ended: the closed-loop user's pause before its next burst, nanoseconds. */
  long pauseNanos();
}

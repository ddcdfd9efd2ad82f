package dev.tokenmeter.core.loadgen;

import dev.tokenmeter.core.request.RequestSpec;
import dev.tokenmeter.core.request.RequestTimeline;

/**
 * One session of a {@link SessionSource}: a sequence of turns whose next prompt is built from the
 * history (the earlier prompts and the server's answers as received). The engine calls, on its
 * loop and in this order: {@link #next} for turn 1; then, for each turn that succeeded, {@link
 * #answered} when it ended and, while that returns true, {@link #thinkNanos} for the pause and
 * {@link #next} for the following turn. A turn that failed ends the session (its answer cannot be
 * appended); the engine then calls nothing more. Every call must be cheap: no tokenizing of the
 * history (keep running counts). Not thread-safe: one loop drives it.
 */
public interface Conversation {

  /** Why a session ended of itself. */
  enum End {
    /** Every turn it planned was sent and answered. */
    TURNS,
    /** Its next prompt would have exceeded the context limit ({@code --max-context}). */
    MAX_CONTEXT
  }

  /**
   * The next turn's request, with id {@code id} and its {@link RequestSpec#turn()} set. Null only
   * for a first turn that alone would exceed the context limit ({@link #end} is then {@link
   * End#MAX_CONTEXT}).
   */
  RequestSpec next(long id);

  /**
   * The turn last returned by {@link #next} succeeded with {@code answer}: its answer text (and
   * the server's usage, where reported) goes into the history. Reads the timeline on the loop,
   * before it is handed to the sink. Returns whether another turn follows; when not, {@link #end}
   * says why.
   */
  boolean answered(RequestTimeline answer);

  /** The pause before the next turn, in nanoseconds (0 for none); drawn once per call. */
  long thinkNanos();

  /** Why the session ended; null while {@link #next} has not returned null. */
  End end();
}

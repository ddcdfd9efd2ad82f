package dev.tokenmeter.core.metrics;

import dev.tokenmeter.core.analysis.StageResult;
import dev.tokenmeter.core.request.ErrorClass;
import dev.tokenmeter.core.request.FinishClass;
import java.util.EnumMap;

/**
 * Counts why measured answers ended ({@link StageResult.Finishes}): every completed request and
 * every one a content policy stopped, by {@link FinishClass}, and how many of those that named a
 * {@code max_tokens} reached it. Not thread-safe: fed by one recorder.
 */
public final class FinishTally {
  private final long[] byClass = new long[FinishClass.values().length];
  private long withMaxTokens;
  private long reachedMaxTokens;

  /**
   * Counts one answer, when it has one: {@code errorClass} null (completed) or {@code
   * content_filter}; other failures are left out.
   *
   * @param maxTokens the request's limit, -1 when it named none
   * @param outputTokens the answer's output count {@code n}
   */
  public void add(ErrorClass errorClass, String finishReason, int maxTokens, int outputTokens) {
    if (errorClass != null && errorClass != ErrorClass.CONTENT_FILTER) {
      return;
    }
    byClass[FinishClass.of(finishReason).ordinal()]++;
    if (maxTokens > 0) {
      withMaxTokens++;
      if (outputTokens >= maxTokens) {
        reachedMaxTokens++;
      }
    }
  }

  /** The counts so far. */
  public StageResult.Finishes result() {
    EnumMap<FinishClass, Long> m = new EnumMap<>(FinishClass.class);
    for (FinishClass c : FinishClass.values()) {
      m.put(c, byClass[c.ordinal()]);
    }
    return new StageResult.Finishes(m, withMaxTokens, reachedMaxTokens);
  }
}

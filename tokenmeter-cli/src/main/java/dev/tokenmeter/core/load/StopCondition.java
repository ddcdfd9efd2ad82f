package dev.tokenmeter.core.load;

/** When a stage's measurement window ends. */
public sealed interface StopCondition {

  /** The window lasts this long. */
  record Duration(long nanos) implements StopCondition {
    public Duration {
      if (nanos <= 0) {
        throw new IllegalArgumentException("duration must be positive");
      }
    }
  }

  /** The window holds exactly this many requests (scheduled after warm-up). */
  record Requests(long count) implements StopCondition {
    public Requests {
      if (count < 1) {
        throw new IllegalArgumentException("request count must be at least 1, got " + count);
      }
    }
  }
}

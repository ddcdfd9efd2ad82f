package dev.tokenmeter.core.analysis;

/**
 * The turns of a conversation an SLO objective is about ({@code ttft.p99[turn>=4]<=1s}): turns
 * {@code min..max}, both included, {@code max} {@link Integer#MAX_VALUE} for no upper bound. Turns
 * past {@link Sessions#TURN_CAP} are recorded together, so a range either ends at that cap or
 * earlier, or has no upper bound, and starts at {@code TURN_CAP + 1} at the latest.
 */
public record TurnRange(int min, int max) {
  private static final String FORMS = "write turn=2, turn>=4, turn>4, turn<=3, turn<3 or turn=2..5";

  public TurnRange {
    if (min < 1 || min > max) {
      throw new IllegalArgumentException("a turn range needs 1 <= first <= last turn");
    }
    if (min > Sessions.TURN_CAP + 1) {
      throw new IllegalArgumentException("turns past " + Sessions.TURN_CAP + " are recorded together: start the range at turn "
          + (Sessions.TURN_CAP + 1) + " at the latest (turn>=" + (Sessions.TURN_CAP + 1) + ")");
    }
    if (max != Integer.MAX_VALUE && max > Sessions.TURN_CAP) {
      throw new IllegalArgumentException("turns past " + Sessions.TURN_CAP + " are recorded together: end the range at turn "
          + Sessions.TURN_CAP + " at the latest, or leave it open (turn>=N)");
    }
  }

  /**
   * Parses the text inside the brackets ({@code "turn>=4"}).
   *
   * @throws IllegalArgumentException naming the problem and the valid forms
   */
  public static TurnRange parse(String text) {
    String t = text.replace(" ", "").toLowerCase(java.util.Locale.ROOT);
    if (!t.startsWith("turn")) {
      throw new IllegalArgumentException("'" + text + "' is not a turn range; " + FORMS);
    }
    String rest = t.substring(4);
    try {
      if (rest.startsWith(">=")) {
        return new TurnRange(number(rest.substring(2)), Integer.MAX_VALUE);
      } else if (rest.startsWith(">")) {
        return new TurnRange(number(rest.substring(1)) + 1, Integer.MAX_VALUE);
      } else if (rest.startsWith("<=")) {
        return new TurnRange(1, number(rest.substring(2)));
      } else if (rest.startsWith("<")) {
        return new TurnRange(1, number(rest.substring(1)) - 1);
      } else if (rest.startsWith("=")) {
        String v = rest.substring(rest.startsWith("==") ? 2 : 1);
        int dots = v.indexOf("..");
        return dots < 0
            ? new TurnRange(number(v), number(v))
            : new TurnRange(number(v.substring(0, dots)), number(v.substring(dots + 2)));
      }
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException("'" + text + "' needs whole turn numbers; " + FORMS);
    }
    throw new IllegalArgumentException("'" + text + "' is not a turn range; " + FORMS);
  }

  private static int number(String s) {
    return Integer.parseInt(s);
  }

  /** Whether turn {@code turn} is in the range. */
  public boolean contains(int turn) {
    return turn >= min && turn <= max;
  }

  /** {@code "turn>=4"}, {@code "turn=2"}, {@code "turn=2..5"}, {@code "turn<=3"}. */
  @Override
  public String toString() {
    if (max == Integer.MAX_VALUE) {
      return "turn>=" + min;
    }
    if (min == max) {
      return "turn=" + min;
    }
    return min == 1 ? "turn<=" + max : "turn=" + min + ".." + max;
  }
}

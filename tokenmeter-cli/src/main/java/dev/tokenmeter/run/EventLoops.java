package dev.tokenmeter.run;

import java.util.Locale;

/**
 * How many event loops a bench's client reads its sockets with ({@code --event-loops N|auto}).
 *
 * <p>One loop reads every socket that is ready at a wake-up one after another, stamping each read
 * as it returns; when a server sends a token on 1,000 streams at once, the last stamp lags the first
 * by the whole pass (about 8 µs per read measured on the project's machines), which is the ITL p99
 * error at 1,000 streams in docs/PERFORMANCE.md, "Event loops and held reads at 1,000 streams".
 * Several loops read their shares at the same
 * time on different cores, and even on one core the kernel switches to a loop whose sockets became
 * ready while another works through its pass (2 loops sharing one CPU at 1,000 paced streams: ITL
 * p99 error +0.3 to +3.0 ms against +4.2 to +6.2 with one loop, 3 pairs, §8). {@code auto} gives one
 * loop per {@value #STREAMS_PER_LOOP} streams of the largest stage, at most as many as the cores
 * (two on one core), at least one: one loop up to 256 streams, where one loop met the timing
 * targets and a second cost 3 to 9% more CPU per token. Stateless.
 */
public final class EventLoops {
  /** Streams one loop serves under {@code auto}. */
  public static final int STREAMS_PER_LOOP = 256;

  /** The most loops {@code --event-loops} takes. */
  public static final int MAX = 64;

  private EventLoops() {}

  /** {@code auto}'s choice for {@code streams} in flight (0 when not known) on {@code cores} cores. */
  public static int auto(int streams, int cores) {
    int byStreams = (int) ((Math.max(streams, 1) + (long) STREAMS_PER_LOOP - 1) / STREAMS_PER_LOOP);
    return Math.max(1, Math.min(byStreams, Math.max(2, cores)));
  }

  /**
   * {@code value} ({@code auto} or a count from 1 to {@value #MAX}) for a lane with {@code streams}
   * in flight at most; a bad value is an {@link IllegalArgumentException} naming the fix.
   */
  public static int resolve(String value, int streams, int cores) {
    String v = value.strip().toLowerCase(Locale.ROOT);
    if (v.equals("auto")) {
      return auto(streams, cores);
    }
    int n;
    try {
      n = Integer.parseInt(v);
    } catch (NumberFormatException e) {
      n = -1;
    }
    if (n < 1 || n > MAX) {
      throw new IllegalArgumentException("--event-loops '" + value + "': give auto or a whole number from 1 to " + MAX
          + " (one loop per " + STREAMS_PER_LOOP + " streams is what auto picks)");
    }
    return n;
  }
}

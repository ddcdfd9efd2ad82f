package dev.tokenmeter.core.analysis;

import java.util.List;
import java.util.Locale;
import java.util.Objects;
import org.HdrHistogram.Histogram;

/**
 * The code-completion requests of one stage ({@code --profile completion}): how many were sent and
 * how each ended. Null in a {@link StageResult} of a stage without them. Counts hold {@code
 * MEASURED} requests only. Cancelled requests (superseded, or cut by {@code --cancel-after}) are
 * the user's doing: they are here and in no error count. See docs/METRICS.md, "Code completion".
 *
 * <p>{@code sent = completed + superseded + cancelledAfter + failed + cutAtStageEnd}.
 *
 * @param sent measured completion requests issued
 * @param completed those whose answer ended normally
 * @param superseded those cancelled because the same user's next keystroke sent a new request
 * @param cancelledAfter those cancelled by {@code --cancel-after} before they ended
 * @param failed those that failed on the server's side or the network's (in the stage's errors)
 * @param cutAtStageEnd those cancelled because the stage ended (as every stage's stragglers are)
 * @param ttft TTFT from the send of the completed ones, nanoseconds
 * @param serverStop whether the server stopped generating for the requests the client cancelled
 */
public record Completions(
    long sent,
    long completed,
    long superseded,
    long cancelledAfter,
    long failed,
    long cutAtStageEnd,
    Histogram ttft,
    ServerStop serverStop) {

  public Completions {
    Objects.requireNonNull(ttft, "ttft");
    Objects.requireNonNull(serverStop, "serverStop");
  }

  /** What is known of the server's behaviour when the client cancels a request. */
  public enum ServerStop {
    /** It stopped generating (the simulator's engine model). */
    STOPPED("stopped"),
    /** It went on generating after the client hung up (for a future reading of a server's metrics). */
    KEPT_GENERATING("kept_generating"),
    /** Nothing measured it (a real server: bench does not read it from the server's metrics yet). */
    NOT_KNOWN("not_known");

    private final String wireName;

    ServerStop(String wireName) {
      this.wireName = wireName;
    }

    /** The name summary.json writes. */
    public String wireName() {
      return wireName;
    }

    /** The value named {@code wireName}; {@link #NOT_KNOWN} for anything else. */
    public static ServerStop ofWireName(String wireName) {
      for (ServerStop s : values()) {
        if (s.wireName.equals(wireName)) {
          return s;
        }
      }
      return NOT_KNOWN;
    }
  }

  /** Requests the client cancelled (superseded or by --cancel-after). */
  public long cancelled() {
    return superseded + cancelledAfter;
  }

  /** {@link #cancelled()} over {@link #sent}, NaN when nothing was sent. */
  public double cancelledShare() {
    return sent == 0 ? Double.NaN : (double) cancelled() / sent;
  }

  /** This tally with {@code stop} as what is known of the server. */
  public Completions withServerStop(ServerStop stop) {
    return new Completions(sent, completed, superseded, cancelledAfter, failed, cutAtStageEnd, ttft, stop);
  }

  /**
   * The completion requests of load generators that ran side by side: counts add, TTFT histograms
   * add; the server stopped when every part saw it stop, kept generating when any part saw it go
   * on, else not known.
   */
  public static Completions merge(List<Completions> parts) {
    Histogram ttft = new Histogram(3);
    ttft.setAutoResize(true);
    long[] n = new long[6];
    boolean allStopped = true;
    boolean anyKept = false;
    for (Completions c : parts) {
      n[0] += c.sent;
      n[1] += c.completed;
      n[2] += c.superseded;
      n[3] += c.cancelledAfter;
      n[4] += c.failed;
      n[5] += c.cutAtStageEnd;
      ttft.add(c.ttft);
      allStopped &= c.serverStop == ServerStop.STOPPED;
      anyKept |= c.serverStop == ServerStop.KEPT_GENERATING;
    }
    ServerStop stop = anyKept ? ServerStop.KEPT_GENERATING : allStopped ? ServerStop.STOPPED : ServerStop.NOT_KNOWN;
    return new Completions(n[0], n[1], n[2], n[3], n[4], n[5], ttft, stop);
  }

  /** One sentence for the terminal and the report. */
  public String inWords() {
    if (sent == 0) {
      return "no completion request was measured";
    }
    String ttftText = ttft.getTotalCount() == 0 ? "none completed"
        : String.format(Locale.ROOT, "TTFT p50 %.0f ms, p99 %.0f ms over the %d completed",
            ttft.getValueAtPercentile(50) / 1e6, ttft.getValueAtPercentile(99) / 1e6, completed);
    String server = switch (serverStop) {
      case STOPPED -> "the server stopped generating for cancelled requests";
      case KEPT_GENERATING -> "the server went on generating after the client hung up";
      case NOT_KNOWN -> "whether the server stopped generating is not known (a real server's behaviour is not measured yet)";
    };
    return String.format(Locale.ROOT, "%d completion requests: %d completed, %d superseded by the next keystroke,"
        + " %d cancelled by --cancel-after (%.0f%% cancelled), %d failed; %s; %s",
        sent, completed, superseded, cancelledAfter, 100 * cancelledShare(), failed, ttftText, server);
  }
}

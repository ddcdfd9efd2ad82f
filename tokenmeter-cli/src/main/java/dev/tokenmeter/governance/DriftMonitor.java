package dev.tokenmeter.governance;

import dev.tokenmeter.ledger.MeteredRequest;
import dev.tokenmeter.ledger.MeteredRequestSink;
import java.time.Duration;
import java.time.Instant;
import java.time.InstantSource;
import java.util.ArrayDeque;
import java.util.List;
import java.util.Objects;

/**
 * Watches live traffic for drift from a benchmark over a rolling window: takes each completed
 * request from the proxy's record path, and every {@code checkEvery} requests (or when the last
 * check is older than a minute) compares the window with the baseline ({@link DriftCheck}). A
 * change in the set of drifted dimensions raises a {@link DriftNotice}; every check updates the
 * listener's figures (the metrics).
 *
 * <p>The window keeps the newest {@code maxRequests} completed requests of the last {@code window}
 * (by their start time). A check costs two KS tests and sorts of at most that many values (about a
 * millisecond at 5,000): it runs on the record thread, never the stream path. Thread-safe: one
 * lock; the listener is called under it and must not block.
 */
public final class DriftMonitor implements MeteredRequestSink {
  /** Longest gap between checks while requests keep coming. */
  static final Duration CHECK_AT_LEAST_EVERY = Duration.ofMinutes(1);

  /** What the monitor tells. */
  public interface Listener {
    /** Every comparison made. */
    void checked(DriftReport report);

    /** A change in what drifted. */
    void notice(DriftNotice notice);
  }

  /**
   * @param window how far back the rolling window reaches
   * @param maxRequests the most requests it keeps (the newest)
   * @param checkEvery requests between checks
   */
  public record Settings(Duration window, int maxRequests, int checkEvery) {
    /** 15 minutes, 5,000 requests, a check every 100. */
    public static final Settings DEFAULT = new Settings(Duration.ofMinutes(15), 5_000, 100);

    public Settings {
      if (window.isNegative() || window.isZero() || maxRequests < DriftCheck.MIN_REQUESTS || checkEvery < 1) {
        throw new IllegalArgumentException("drift window must be positive and hold at least "
            + DriftCheck.MIN_REQUESTS + " requests, checks at least every request");
      }
    }
  }

  private final DriftBaseline baseline;
  private final Settings settings;
  private final InstantSource clock;
  private final Listener listener;
  private final ArrayDeque<DriftSample.Request> recent = new ArrayDeque<>();
  private int sinceCheck;
  private Instant lastCheck;
  private List<String> noticed = List.of();
  private DriftReport last;

  public DriftMonitor(DriftBaseline baseline, Settings settings, InstantSource clock, Listener listener) {
    this.baseline = Objects.requireNonNull(baseline, "baseline");
    this.settings = Objects.requireNonNull(settings, "settings");
    this.clock = Objects.requireNonNull(clock, "clock");
    this.listener = Objects.requireNonNull(listener, "listener");
    this.lastCheck = clock.instant();
  }

  @Override
  public synchronized void accept(MeteredRequest r) {
    if (!r.ok() || r.model() == null) {
      return; // a failed request's lengths, or a model listing's, say nothing of the workload sent
    }
    recent.addLast(new DriftSample.Request(r.startedAtEpochMillis(), r.model(), r.inputTokens(), r.outputTokens(),
        r.inFlightAtStart()));
    while (recent.size() > settings.maxRequests()) {
      recent.removeFirst();
    }
    Instant now = clock.instant();
    if (++sinceCheck >= settings.checkEvery() || !now.isBefore(lastCheck.plus(CHECK_AT_LEAST_EVERY))) {
      check(now);
    }
  }

  /** Compares the window with the baseline now and tells the listener; returns the report. */
  public synchronized DriftReport check() {
    return check(clock.instant());
  }

  private DriftReport check(Instant now) {
    long oldest = now.minus(settings.window()).toEpochMilli();
    while (!recent.isEmpty() && recent.peekFirst().atEpochMillis() < oldest) {
      recent.removeFirst();
    }
    sinceCheck = 0;
    lastCheck = now;
    DriftReport report = DriftCheck.compare(baseline, DriftSample.of(List.copyOf(recent)), now);
    last = report;
    listener.checked(report);
    if (!report.tooFew()) {
      List<String> drifted = report.driftedDimensions();
      if (!drifted.equals(noticed)) {
        listener.notice(new DriftNotice(report, settings.window(), drifted.isEmpty()));
        noticed = drifted;
      }
    }
    return report;
  }

  /** The latest comparison, or null before the first. */
  public synchronized DriftReport last() {
    return last;
  }
}

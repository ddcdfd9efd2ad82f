package dev.tokenmeter.governance;

import dev.tokenmeter.core.time.Ticker;
import dev.tokenmeter.ledger.MeteredRequest;
import dev.tokenmeter.ledger.MeteredRequestSink;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * The live SLOs: every metered request counts toward the SLIs whose scope it is in, over rolling
 * windows ({@link BurnWindow}); after each request and each {@link #evaluate()} the burn rates are
 * recomputed and each SLO's page and ticket alerts ({@link Severity}) raised or resolved, once per
 * transition.
 *
 * <p>Burn rate over a window = (bad requests / requests counted) / error budget: 1 spends the
 * budget exactly over the SLO period, 14.4 spends a 30-day budget's 2% in one hour. A window with
 * no request counted has no burn rate (NaN) and fires nothing.
 *
 * <pre>{@code
 * SloBook book = new SloBook(slos, Ticker.system(), InstantSource.system(), listener);
 * book.accept(meteredRequest);   // the proxy's record path
 * book.evaluate();               // now and then, so that alerts resolve when traffic stops
 * book.snapshot();               // for a dashboard
 * }</pre>
 *
 * <p>Thread-safe; the listener is called under the lock and must not block.
 */
public final class SloBook implements MeteredRequestSink {
  /** What the book tells. */
  public interface Listener {
    /** The burn rate of {@code slo} over {@code window} now (NaN: no request in it). */
    void burnRate(LiveSlo slo, BurnWindow window, double rate);

    /** An alert started firing or resolved. */
    void alert(SloAlert alert);
  }

  private static final BurnWindow[] WINDOWS = BurnWindow.values();
  private static final Severity[] SEVERITIES = Severity.values();

  private static final class Tracker {
    final LiveSlo slo;
    final RollingCount[] counts = new RollingCount[WINDOWS.length];
    final boolean[] firing = new boolean[SEVERITIES.length];
    final double[] burn = new double[WINDOWS.length];

    Tracker(LiveSlo slo, long originNanos) {
      this.slo = slo;
      for (BurnWindow w : WINDOWS) {
        counts[w.ordinal()] = new RollingCount(w.nanos(), originNanos);
      }
      java.util.Arrays.fill(burn, Double.NaN);
    }
  }

  private final List<Tracker> trackers = new ArrayList<>();
  private final Ticker ticker;
  private final InstantSource clock;
  private final Listener listener;

  /** @param clock stamps the alerts; the windows run on {@code ticker} */
  public SloBook(List<LiveSlo> slos, Ticker ticker, InstantSource clock, Listener listener) {
    this.ticker = Objects.requireNonNull(ticker, "ticker");
    this.clock = Objects.requireNonNull(clock, "clock");
    this.listener = Objects.requireNonNull(listener, "listener");
    long origin = ticker.nanos();
    for (LiveSlo s : slos) {
      trackers.add(new Tracker(s, origin));
    }
  }

  /** The SLOs, in the order given. */
  public List<LiveSlo> slos() {
    return trackers.stream().map(t -> t.slo).toList();
  }

  /** Counts {@code r} toward every SLO whose scope it is in, then evaluates. */
  @Override
  public synchronized void accept(MeteredRequest r) {
    long now = ticker.nanos();
    for (Tracker t : trackers) {
      LiveSlo.Judgement j = t.slo.judge(r);
      if (j == LiveSlo.Judgement.NOT_COUNTED) {
        continue;
      }
      for (RollingCount c : t.counts) {
        c.add(now, j == LiveSlo.Judgement.GOOD);
      }
    }
    evaluate(now);
  }

  /** Recomputes every burn rate at the ticker's now and raises the alerts that changed state. */
  public synchronized void evaluate() {
    evaluate(ticker.nanos());
  }

  private void evaluate(long now) {
    for (Tracker t : trackers) {
      for (BurnWindow w : WINDOWS) {
        RollingCount c = t.counts[w.ordinal()];
        long total = c.total(now);
        double bad = total == 0 ? Double.NaN : (double) (total - c.good(now)) / total;
        t.burn[w.ordinal()] = bad / t.slo.budget();
        listener.burnRate(t.slo, w, t.burn[w.ordinal()]);
      }
      for (Severity s : SEVERITIES) {
        boolean fires = s.fires(t.burn);
        if (fires != t.firing[s.ordinal()]) {
          t.firing[s.ordinal()] = fires;
          listener.alert(new SloAlert(t.slo, s, fires ? SloAlert.Transition.FIRING : SloAlert.Transition.RESOLVED,
              t.burn, clock.instant()));
        }
      }
    }
  }

  /** Every SLO's SLI, burn rates and state now (an evaluation: alerts that changed are raised first). */
  public synchronized List<SloStatus> snapshot() {
    long now = ticker.nanos();
    evaluate(now);
    List<SloStatus> out = new ArrayList<>();
    for (Tracker t : trackers) {
      Map<String, Double> sli = new LinkedHashMap<>();
      Map<String, Long> requests = new LinkedHashMap<>();
      Map<String, Double> burn = new LinkedHashMap<>();
      for (BurnWindow w : WINDOWS) {
        RollingCount c = t.counts[w.ordinal()];
        long total = c.total(now);
        double good = total == 0 ? Double.NaN : (double) c.good(now) / total;
        sli.put(w.label(), good);
        requests.put(w.label(), total);
        burn.put(w.label(), t.burn[w.ordinal()]);
      }
      SloStatus.State state = t.firing[Severity.PAGE.ordinal()] ? SloStatus.State.PAGE
          : t.firing[Severity.TICKET.ordinal()] ? SloStatus.State.TICKET : SloStatus.State.OK;
      out.add(new SloStatus(t.slo.name(), t.slo.objective().describe(), t.slo.scope().describe(), t.slo.budget(), sli,
          requests, burn, state));
    }
    return out;
  }
}

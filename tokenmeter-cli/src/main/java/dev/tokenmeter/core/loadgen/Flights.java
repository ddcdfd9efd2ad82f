package dev.tokenmeter.core.loadgen;

import dev.tokenmeter.core.request.Outcome;
import dev.tokenmeter.core.request.TimeoutKind;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.TreeSet;

/**
 * A stage's requests in flight and their client-side deadlines ({@link Timeouts}): an unordered
 * list with O(1) removal (an ended flight's slot takes the last one), and the flights that could
 * time out filed by the earliest instant each could, so a {@link #sweep} looks only at those due,
 * not at every request in flight. Loop-confined.
 */
final class Flights {
  /** How often deadlines are checked: timeouts resolve to within this. */
  static final long SWEEP_NANOS = 20_000_000L; // 20 ms

  private final Timeouts timeouts;
  private final ArrayList<Flight> inFlight = new ArrayList<>();
  /** The flights in {@link #inFlight} that could time out, by {@link Flight#checkAt}. */
  private final TreeSet<Flight> deadlines =
      new TreeSet<>(Comparator.<Flight>comparingLong(f -> f.checkAt).thenComparingLong(f -> f.seq));

  Flights(Timeouts timeouts) {
    this.timeouts = timeouts;
  }

  int size() {
    return inFlight.size();
  }

  boolean isEmpty() {
    return inFlight.isEmpty();
  }

  /** Adds {@code f}, issued at {@code nowNanos}, and files its first deadline. */
  void add(Flight f, long nowNanos) {
    f.index = inFlight.size();
    inFlight.add(f);
    watch(f, earliestTimeout(f, nowNanos));
  }

  /** Removes {@code f}, which ended, and its deadline. */
  void remove(Flight f) {
    int i = f.index;
    Flight last = inFlight.remove(inFlight.size() - 1);
    if (last != f) {
      inFlight.set(i, last);
      last.index = i;
    }
    f.index = -1;
    if (f.watched) {
      deadlines.remove(f);
      f.watched = false;
    }
  }

  /** Aborts every flight as {@link Outcome.Cancelled} for {@code reason}, in list order. */
  void cancelAll(String reason) {
    for (Flight f : new ArrayList<>(inFlight)) {
      f.exchange.abort(new Outcome.Cancelled(reason));
    }
  }

  /** Aborts, as {@link Outcome.TimedOut}, every flight whose deadline passed by {@code now}. */
  void sweep(long now) {
    List<Flight> late = null;
    while (!deadlines.isEmpty() && deadlines.first().checkAt <= now) {
      Flight f = deadlines.pollFirst();
      f.watched = false;
      TimeoutKind k = deadlinePassed(f, now);
      if (k == null) {
        watch(f, earliestTimeout(f, now));
      } else {
        if (late == null) {
          late = new ArrayList<>();
        }
        f.timedOut = k;
        late.add(f);
      }
    }
    if (late != null) {
      // In the order of inFlight, as when every sweep walked it: the order the engine sees aborts.
      late.sort(Comparator.comparingInt(f -> f.index));
      for (Flight f : late) {
        f.exchange.abort(new Outcome.TimedOut(f.timedOut));
      }
      for (Flight f : late) {
        if (f.index >= 0 && !f.watched) {
          watch(f, now + 1); // not ended by its abort: abort it again at the next sweep
        }
      }
    }
  }

  /** Files {@code f} under {@code checkAt} for the sweep; {@link Flight#NEVER} files nothing. */
  private void watch(Flight f, long checkAt) {
    if (checkAt != Flight.NEVER) {
      f.checkAt = checkAt;
      f.watched = true;
      deadlines.add(f);
    }
  }

  /**
   * The earliest instant after {@code now} at which {@link #deadlinePassed} could return a timeout
   * for {@code f}, given what happened so far ({@link Flight#NEVER} when no timeout is set):
   * activity only moves deadlines later, so the flight need not be looked at before then.
   */
  private long earliestTimeout(Flight f, long now) {
    long sent = f.timeline.sentNanos();
    if (sent < 0) {
      return now + 1; // still connecting: look again at the next sweep
    }
    long at = Flight.NEVER;
    if (timeouts.totalNanos() > 0) {
      at = Math.min(at, sent + timeouts.totalNanos() + 1);
    }
    if (f.timeline.firstTokenNanos() < 0) {
      if (timeouts.firstTokenNanos() > 0) {
        at = Math.min(at, sent + timeouts.firstTokenNanos() + 1);
      }
      if (timeouts.idleNanos() > 0) {
        // The first token may come at any moment, and the idle clock then starts from its
        // arrival, stamped on a reading thread up to a sweep before this loop's now.
        at = Math.min(at, now + Math.max(1, timeouts.idleNanos() + 1 - SWEEP_NANOS));
      }
    } else if (timeouts.idleNanos() > 0) {
      at = Math.min(at, f.lastActivityNanos + timeouts.idleNanos() + 1);
    }
    return at;
  }

  private TimeoutKind deadlinePassed(Flight f, long now) {
    long sent = f.timeline.sentNanos();
    if (sent < 0) {
      return null; // still connecting: the connect timeout applies
    }
    if (timeouts.totalNanos() > 0 && now - sent > timeouts.totalNanos()) {
      return TimeoutKind.TOTAL;
    }
    if (f.timeline.firstTokenNanos() < 0) {
      if (timeouts.firstTokenNanos() > 0 && now - sent > timeouts.firstTokenNanos()) {
        return TimeoutKind.FIRST_TOKEN;
      }
    } else if (timeouts.idleNanos() > 0 && now - f.lastActivityNanos > timeouts.idleNanos()) {
      return TimeoutKind.IDLE;
    }
    return null;
  }
}

package dev.tokenmeter.core.loadgen;

import dev.tokenmeter.core.request.Outcome;
import dev.tokenmeter.core.request.RequestTimeline;
import dev.tokenmeter.core.request.StreamItem;
import dev.tokenmeter.core.request.TimeoutKind;

/**
 * One request in flight: the endpoint's listener for it, which fills its {@link RequestTimeline},
 * and the stage's bookkeeping of it (its place in {@link Flights}, its deadline, the session it is a
 * turn of). The endpoint calls it on the stage's loop; everything else is confined there too.
 *
 * <p>{@link #item} runs once per stream chunk: it only stamps the timeline and the activity clock
 * the idle timeout reads.
 */
final class Flight implements ExchangeListener {
  /** A {@link #checkAt} for a flight with no deadline: it is never filed. */
  static final long NEVER = Long.MAX_VALUE;

  private final StageRunner stage;
  final RequestTimeline timeline;
  final long seq;
  /** The conversation this request is a turn of, null without sessions. */
  Session session;
  /** A keystroke's request whose burst goes on: a timer sends the next, superseding this one. */
  boolean followed;
  Exchange exchange;
  /** Position in {@link Flights}'s list; -1 once ended. */
  int index;
  long lastActivityNanos = -1;
  TimeoutKind timedOut;
  /** When filed in {@link Flights}'s deadlines: no deadline of this flight passes before this instant. */
  long checkAt;
  boolean watched;

  Flight(StageRunner stage, RequestTimeline timeline, long seq) {
    this.stage = stage;
    this.timeline = timeline;
    this.seq = seq;
  }

  @Override
  public void connected(long connectStartNanos, long connectedNanos) {
    timeline.connected(connectStartNanos, connectedNanos);
  }

  @Override
  public void sent(long nanos) {
    stage.window.advance();
    timeline.sent(nanos);
    lastActivityNanos = nanos;
    stage.recorder().requestSent(timeline, nanos);
  }

  @Override
  public void headers(int status, long nanos) {
    timeline.headers(status, nanos);
    lastActivityNanos = nanos;
  }

  @Override
  public void item(StreamItem item, long nanos) {
    timeline.item(item, nanos);
    lastActivityNanos = nanos;
  }

  @Override
  public void end(Outcome outcome, long nanos) {
    timeline.end(outcome, nanos);
    stage.ended(this, nanos);
  }
}

package dev.tokenmeter.testkit;

import dev.tokenmeter.core.analysis.StageResult;
import dev.tokenmeter.core.metrics.RequestMetrics;
import dev.tokenmeter.core.request.Phase;
import dev.tokenmeter.core.request.RequestTimeline;
import dev.tokenmeter.simulator.EmissionRecord;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;

/**
 * What {@link StageKit#run} measured: the stage's result, every finished request (any phase, in the
 * order they ended) and the connections the client opened. Immutable once returned.
 *
 * @param result the recorder's analysis of the stage
 * @param requests every request the sink received
 * @param connectionsOpened TCP connections the endpoint opened during the stage
 * @param startedPerLoop requests started on each of the client's event loops
 */
public record StageRun(StageResult result, List<Finished> requests, long connectionsOpened, List<Long> startedPerLoop) {

  public StageRun {
    requests = List.copyOf(requests);
    startedPerLoop = List.copyOf(startedPerLoop);
  }

  /**
   * One finished request as the sink saw it.
   *
   * @param timeline the client's timeline
   * @param metrics its metrics
   * @param requestIdHeader the {@code X-Request-Id} the client sent for it
   */
  public record Finished(
      RequestTimeline timeline, RequestMetrics metrics, String requestIdHeader) {}

  /**
   * A client request joined to the server's record of it.
   *
   * @param request the client's side
   * @param truth the server's side, null when the request never reached the server
   */
  public record Joined(Finished request, EmissionRecord truth) {
    public RequestTimeline timeline() {
      return request.timeline();
    }

    public RequestMetrics metrics() {
      return request.metrics();
    }

    /** One line for assertion messages: outcome, client times and the server's, in ms from sent. */
    public String describe() {
      RequestTimeline t = request.timeline();
      long base = t.sentNanos() >= 0 ? t.sentNanos() : t.scheduledNanos();
      StringBuilder sb = new StringBuilder();
      sb.append("request ")
          .append(t.id())
          .append(' ')
          .append(t.outcome())
          .append(" status=")
          .append(t.httpStatus())
          .append(" new_connection=")
          .append(t.connectedNanos() >= 0)
          .append(" headers=")
          .append(ms(t.headersNanos(), base))
          .append(" first=")
          .append(ms(t.firstTokenNanos(), base))
          .append(" chunks=")
          .append(t.chunkCount())
          .append(" end=")
          .append(ms(t.endNanos(), base));
      if (truth != null) {
        long[] a = truth.actualNanos();
        sb.append(" | server ")
            .append(truth.fault())
            .append(' ')
            .append(truth.ending())
            .append(" arrival=")
            .append(ms(truth.arrivalNanos(), base))
            .append(" headers=")
            .append(ms(truth.headersNanos(), base))
            .append(" tokens=")
            .append(a.length)
            .append(" first=")
            .append(a.length > 0 ? ms(a[0], base) : "-")
            .append(" last=")
            .append(a.length > 0 ? ms(a[a.length - 1], base) : "-");
      } else {
        sb.append(" | no server record");
      }
      return sb.toString();
    }

    private static String ms(long nanos, long base) {
      return nanos < 0 ? "-" : String.format(java.util.Locale.ROOT, "%.3f", (nanos - base) / 1e6);
    }
  }

  /** Requests of the measurement window, by id. */
  public List<Finished> measured() {
    return requests.stream()
        .filter(f -> f.timeline().phase() == Phase.MEASURED)
        .sorted(Comparator.comparingLong(f -> f.timeline().id()))
        .toList();
  }

  /** Every request, by id. */
  public List<Finished> byId() {
    return requests.stream().sorted(Comparator.comparingLong(f -> f.timeline().id())).toList();
  }

  /**
   * Every request (by id) joined to its {@link EmissionRecord} in {@code sim} by X-Request-Id. Call
   * after {@link SimFixture#awaitAllRecords} when requests were cut.
   *
   * @throws AssertionError when a request that got response headers has no record
   */
  public List<Joined> join(SimFixture sim) {
    Map<String, EmissionRecord> truth = sim.recordsById();
    List<Joined> out = new ArrayList<>();
    for (Finished f : byId()) {
      EmissionRecord r = truth.get(f.requestIdHeader());
      if (r == null && f.timeline().httpStatus() == 200) {
        throw new AssertionError("no server record for " + f.requestIdHeader());
      }
      out.add(new Joined(f, r));
    }
    return out;
  }

  /** The window's start on the ticker's scale (stage start + window start offset). */
  public long windowStartNanos() {
    return result.stageStartNanos() + result.window().startOffsetNanos();
  }

  /** The window's end on the ticker's scale. */
  public long windowEndNanos() {
    return result.stageStartNanos() + result.window().endOffsetNanos();
  }
}

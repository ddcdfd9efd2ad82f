package dev.tokenmeter.core.metrics;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tokenmeter.core.analysis.ClientCpu;
import dev.tokenmeter.core.analysis.LatencyOrigin;
import dev.tokenmeter.core.analysis.Metric;
import dev.tokenmeter.core.analysis.Repeats;
import dev.tokenmeter.core.analysis.SendWait;
import dev.tokenmeter.core.analysis.StageResult;
import dev.tokenmeter.core.analysis.Sweep;
import dev.tokenmeter.core.load.Arrivals;
import dev.tokenmeter.core.load.LoadModel;
import dev.tokenmeter.core.load.StagePlan;
import dev.tokenmeter.core.load.StopCondition;
import dev.tokenmeter.core.request.Phase;
import dev.tokenmeter.core.request.RequestTimeline;
import dev.tokenmeter.core.slo.Slo;
import dev.tokenmeter.core.slo.SloReport;
import dev.tokenmeter.report.ConsoleReport;
import java.util.ArrayList;
import java.util.List;
import java.util.OptionalInt;
import org.junit.jupiter.api.Test;

/**
 * The headline TTFT and E2E follow the load model (from the schedule in an open loop, from the
 * send in a closed one) everywhere a figure is read: the SLO verdict, the curve, the repeats, the
 * console; and requests whose tokens came in one read have no TPOT, counted apart.
 *
 * <p>Every stage here: 20 measured requests, one every 100 ms from 0; each waits {@code waitMs}
 * between its schedule and its send, has its first token 100 ms after the send and 4 more tokens
 * 10 ms apart.
 */
class HeadlineLatencyTest {
  private static final long MS = 1_000_000L;
  private static final long S = 1_000 * MS;
  private static final LoadModel OPEN_CAPPED =
      new LoadModel.Open(10, new Arrivals.Constant(), OptionalInt.of(1));
  private static final LoadModel CLOSED = new LoadModel.Closed(1, 0);

  private static StageResult stage(LoadModel load, long waitMs, int oneReadRequests) {
    StagePlan plan = new StagePlan(0, load, new StopCondition.Duration(2 * S), 0, 0, 1);
    StageRecorder r = new StageRecorder(plan, 0);
    r.windowStarted(0);
    List<RequestTimeline> ended = new ArrayList<>();
    for (int i = 0; i < 20; i++) {
      long scheduled = i * 100 * MS;
      long sent = scheduled + waitMs * MS;
      Timelines b = Timelines.request(i, Phase.MEASURED, scheduled, 10).sent(sent);
      long at = sent + 100 * MS;
      if (i < oneReadRequests) {
        b.chunk(at, "all five tokens").usage(10, 5); // the whole answer in one read
      } else {
        for (int k = 0; k < 5; k++) {
          b.chunk(at + k * 10 * MS, "t");
        }
      }
      ended.add(b.completedAtLastChunk(i < oneReadRequests ? at : at + 40 * MS));
    }
    ended.sort((a, b) -> Long.compare(a.sentNanos(), b.sentNanos()));
    for (RequestTimeline t : ended) {
      r.requestSent(t, t.sentNanos());
      r.requestEnded(t, RequestMetrics.of(t, null));
    }
    r.windowEnded(4 * S);
    return r.finish(4 * S, new ClientCpu(0, 0, 1));
  }

  @Test
  void anOpenLoopsHeadlineIsFromTheScheduleAndTheSloFollowsIt() {
    StageResult queued = stage(OPEN_CAPPED, 400, 0);
    assertThat(queued.metric(Metric.TTFT).p99()).isCloseTo(100, org.assertj.core.data.Percentage.withPercentage(0.2));
    assertThat(queued.metric(Metric.TTFT_FROM_SCHEDULED).p99()).isCloseTo(500, org.assertj.core.data.Percentage.withPercentage(0.2));

    SloReport.StageVerdict bare = SloReport.evaluate(Slo.parse("ttft.p99<=300ms"), queued);
    assertThat(bare.passed()).isFalse();
    assertThat(bare.checks().get(0).measured()).isEqualTo(queued.metric(Metric.TTFT_FROM_SCHEDULED).p99());
    assertThat(SloReport.evaluate(Slo.parse("ttft_sent.p99<=300ms"), queued).passed()).isTrue();
    assertThat(SloReport.evaluate(Slo.parse("e2e.p99<=300ms"), queued).passed()).isFalse();
    assertThat(SloReport.evaluate(Slo.parse("e2e_sent.p99<=300ms"), queued).passed()).isTrue();

    Sweep.Point p = Sweep.Point.of(queued);
    assertThat(p.ttftFrom()).isEqualTo(LatencyOrigin.SCHEDULED);
    assertThat(p.ttftP99Millis()).isEqualTo(queued.metric(Metric.TTFT_FROM_SCHEDULED).p99());
    assertThat(p.ttftSentP99Millis()).isEqualTo(queued.metric(Metric.TTFT).p99());
    assertThat(Repeats.Headline.E2E_P99.of(queued)).isEqualTo(queued.metric(Metric.E2E_FROM_SCHEDULED).p99());
  }

  @Test
  void aClosedLoopsHeadlineIsFromTheSend() {
    StageResult closed = stage(CLOSED, 400, 0);
    assertThat(SloReport.evaluate(Slo.parse("ttft.p99<=300ms"), closed).passed()).isTrue();
    assertThat(SloReport.evaluate(Slo.parse("ttft_scheduled.p99<=300ms"), closed).passed()).isFalse();
    assertThat(Sweep.Point.of(closed).ttftFrom()).isEqualTo(LatencyOrigin.SENT);
    assertThat(Repeats.Headline.TTFT_P50.of(closed)).isEqualTo(closed.metric(Metric.TTFT).p50());
    assertThat(SendWait.of(closed).material()).isFalse(); // a closed loop has no queue to hide
  }

  @Test
  void aSendWaitIsMaterialAbove10MsOr5PercentOfTtft() {
    SendWait queued = SendWait.of(stage(OPEN_CAPPED, 400, 0));
    assertThat(queued.material()).isTrue();
    assertThat(queued.fractionOfTtft()).isCloseTo(0.8, org.assertj.core.data.Offset.offset(0.01));
    assertThat(SendWait.of(stage(OPEN_CAPPED, 8, 0)).material()).isTrue(); // 8 ms > 5% of 108 ms
    assertThat(SendWait.of(stage(OPEN_CAPPED, 4, 0)).material()).isFalse(); // 4 ms < 5.2 ms, < 10 ms
    assertThat(SendWait.of(stage(OPEN_CAPPED, 0, 0)).material()).isFalse();
  }

  @Test
  void theConsoleLeadsWithTheUsersWaitAndSaysWhenTheSendLagIsMaterial() {
    String open = ConsoleReport.stage(stage(OPEN_CAPPED, 400, 0), 1);
    assertThat(open).contains("TTFT ms (from schedule)", "TTFT ms (from send)", "E2E ms (from schedule)",
        "E2E ms (from send)");
    assertThat(open.indexOf("TTFT ms (from schedule)")).isLessThan(open.indexOf("TTFT ms (from send)"));
    assertThat(open.lines().filter(l -> l.contains("from schedule to send"))).singleElement().asString()
        .contains("requests waited 400.0 ms (p99)", "TTFT p99 is 100.0 ms");
    String calm = ConsoleReport.stage(stage(OPEN_CAPPED, 0, 0), 1);
    assertThat(calm).contains("TTFT ms (from schedule)").doesNotContain("from schedule to send");
    String closed = ConsoleReport.stage(stage(CLOSED, 400, 0), 1);
    assertThat(closed).contains("  TTFT ms ").doesNotContain("from schedule");
    assertThat(ConsoleReport.sweep(List.of(stage(OPEN_CAPPED, 400, 0), stage(OPEN_CAPPED, 0, 0))))
        .contains("TTFT is from the schedule");
  }

  @Test
  void tokensInOneReadLeaveTpotUndefinedAndCounted() {
    StageResult r = stage(CLOSED, 0, 3);
    assertThat(r.requests().completed()).isEqualTo(20);
    assertThat(r.requests().tpotUndefined()).isEqualTo(3);
    assertThat(r.metric(Metric.TPOT).count()).isEqualTo(17);
    assertThat(r.metric(Metric.DECODE_TPS).count()).isEqualTo(17);
    assertThat(r.metric(Metric.TPOT).min()).isGreaterThan(9.9); // 10 ms, never 0
    assertThat(r.metric(Metric.DECODE_TPS).max()).isLessThan(101); // 100 tok/s, never infinite
    assertThat(ConsoleReport.stage(r, 1)).contains("note: 3 requests have no TPOT or per-user TPS");
  }
}

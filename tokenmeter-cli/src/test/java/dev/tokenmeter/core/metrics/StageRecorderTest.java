package dev.tokenmeter.core.metrics;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalStateException;
import static org.assertj.core.api.Assertions.within;
import static org.assertj.core.api.Assertions.withinPercentage;

import dev.tokenmeter.core.analysis.ClientCpu;
import dev.tokenmeter.core.analysis.Metric;
import dev.tokenmeter.core.analysis.StageResult;
import dev.tokenmeter.core.analysis.TimeSeries;
import dev.tokenmeter.core.load.LoadModel;
import dev.tokenmeter.core.load.StagePlan;
import dev.tokenmeter.core.load.StopCondition;
import dev.tokenmeter.core.request.ErrorClass;
import dev.tokenmeter.core.request.Outcome;
import dev.tokenmeter.core.request.Phase;
import dev.tokenmeter.core.request.RequestTimeline;
import dev.tokenmeter.core.request.TimeoutKind;
import dev.tokenmeter.core.request.TokenCountSource;
import java.util.Map;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * A hand-built stage: five requests around a window of [2 s, 6 s) after a stage start far from
 * the ticker's origin.
 *
 * <pre>
 *  s:   0    1    2    3    4    5    6    7
 *  A (warm-up)  |----*-*|-*--*                  4 chunks, 2 inside the window
 *  B (measured)          |----*--*--*           6 tokens (usage) over 3 chunks: k = 1, 2, 3
 *  C (measured)               |---------- * * | * *   2 of 4 chunks before the window end
 *  D (measured, fails)             |--*------x          1 chunk, idle timeout
 *  E (cool-down)                              |-**
 *  window              [2 ...................6)
 * </pre>
 */
class StageRecorderTest {
  static final long BASE = 1_000_000_000_000L;
  static final StagePlan PLAN =
      new StagePlan(
          0, new LoadModel.Closed(2, 0), new StopCondition.Duration(4_000_000_000L),
          2_000_000_000L, 1_000_000_000L, 1);

  static long at(double seconds) {
    return BASE + Math.round(seconds * 1e9);
  }

  private StageRecorder recorder;
  private StageResult result;

  private void ended(RequestTimeline t) {
    recorder.requestEnded(t, RequestMetrics.of(t, null));
  }

  @BeforeEach
  void runTheStage() {
    RequestTimeline a =
        Timelines.request(1, Phase.WARMUP, at(1.0), 10).sent(at(1.0))
            .chunks(at(1.5), at(1.9), at(2.1), at(2.5)).completedAtLastChunk(at(2.5));
    RequestTimeline b =
        Timelines.request(2, Phase.MEASURED, at(2.4), 15).sent(at(2.5))
            .chunk(at(3.0), "a").chunk(at(3.5), "bc").chunk(at(4.0), "def")
            .usage(20, 6).completedAtLastChunk(at(4.0));
    RequestTimeline c =
        Timelines.request(3, Phase.MEASURED, at(3.0), 10).sent(at(3.0))
            .chunks(at(5.5), at(5.9), at(6.1), at(6.4)).completedAtLastChunk(at(6.4));
    RequestTimeline d =
        Timelines.request(4, Phase.MEASURED, at(4.5), 10).sent(at(4.5))
            .chunks(at(5.0)).failed(new Outcome.TimedOut(TimeoutKind.IDLE), at(5.8));
    RequestTimeline e =
        Timelines.request(5, Phase.COOLDOWN, at(6.2), 10).sent(at(6.2))
            .chunks(at(6.5), at(6.9)).completedAtLastChunk(at(6.95));

    recorder = new StageRecorder(PLAN, at(0));
    recorder.requestSent(a, at(1.0));
    recorder.loopLag(1_000_000_000L); // before the window: not recorded
    recorder.windowStarted(at(2.0));
    recorder.loopLag(2_000_000);
    recorder.sendLag(3_000_000);
    ended(a);
    recorder.requestSent(b, at(2.5));
    recorder.requestSent(c, at(3.0));
    ended(b);
    recorder.requestSent(d, at(4.5));
    ended(d);
    recorder.windowEnded(at(6.0));
    recorder.requestSent(e, at(6.2));
    ended(c);
    ended(e);
    result = recorder.finish(at(7.0), new ClientCpu(700_000_000, 350_000_000, 2));
  }

  @Test
  void windowIsOffsetFromTheStageStart() {
    assertThat(result.window().startOffsetNanos()).isEqualTo(2_000_000_000L);
    assertThat(result.window().endOffsetNanos()).isEqualTo(6_000_000_000L);
    assertThat(result.window().lengthNanos()).isEqualTo(4_000_000_000L);
    assertThat(result.window().complete()).isTrue();
    assertThat(result.stageLengthNanos()).isEqualTo(7_000_000_000L);
    assertThat(result.label()).isEqualTo("c=2");
  }

  @Test
  void outputTpsCountsTokensByArrivalInsideTheWindow() {
    // A: 2 (2.1, 2.5; warm-up request, still counted) + B: 6 + C: 2 (5.5, 5.9; not 6.1, 6.4)
    // + D: 1 (failed, its chunk counts) + E: 0 = 11 tokens over 4 s.
    assertThat(result.throughput().windowOutputTokens()).isEqualTo(11);
    assertThat(result.throughput().outputTokensPerSecond()).isEqualTo(2.75);
  }

  @Test
  void inputTpsAndRequestRateCountCompletedMeasuredRequests() {
    // B: usage 20, C: client count 10; D failed, A and E are not measured.
    assertThat(result.throughput().windowInputTokens()).isEqualTo(30);
    assertThat(result.throughput().inputTokensPerSecond()).isEqualTo(7.5);
    assertThat(result.throughput().requestsPerSecond()).isEqualTo(0.5);
    assertThat(result.throughput().goodputRequestsPerSecond()).isNaN();
  }

  @Test
  void achievedConcurrencyIsTheTimeWeightedMeanOverTheWindow() {
    // In flight over [2, 6): A 0.5 s + B 1.5 s + C 3.0 s + D 1.3 s = 6.3 request-seconds / 4 s.
    assertThat(result.throughput().achievedConcurrency()).isCloseTo(1.575, within(1e-12));
  }

  @Test
  void onlyMeasuredRequestsEnterDistributionsAndCounts() {
    assertThat(result.requests().completed()).isEqualTo(2);
    assertThat(result.requests().failed()).isEqualTo(1);
    assertThat(result.requests().byPhase().get(Phase.WARMUP).completed()).isEqualTo(1);
    assertThat(result.requests().byPhase().get(Phase.COOLDOWN).completed()).isEqualTo(1);
    assertThat(result.errors()).containsExactly(Map.entry(ErrorClass.TIMEOUT_IDLE, 1L));

    // TTFT of B (0.5 s) and C (2.5 s); D apart, A and E left out.
    assertThat(result.metric(Metric.TTFT).count()).isEqualTo(2);
    assertThat(result.metric(Metric.TTFT).min()).isCloseTo(500.0, withinPercentage(0.1));
    assertThat(result.metric(Metric.TTFT).max()).isCloseTo(2500.0, withinPercentage(0.1));
    assertThat(result.metric(Metric.TTFT_FROM_SCHEDULED).min())
        .isCloseTo(600.0, withinPercentage(0.1)); // B scheduled at 2.4, first token at 3.0
    assertThat(result.failedMetrics().get(Metric.TTFT).count()).isEqualTo(1);
    assertThat(result.failedMetrics().get(Metric.E2E).max())
        .isCloseTo(500.0, withinPercentage(0.1)); // D: done falls back to its last token
    assertThat(result.failedMetrics()).doesNotContainKey(Metric.TPOT); // D has one token
    // B: gaps 0.5 s over 2 and 3 tokens -> 5 values; C: 3 gaps of 1 token.
    assertThat(result.histograms().get(Metric.ITL).getTotalCount()).isEqualTo(8);
    assertThat(result.histograms().get(Metric.ITL_CHUNK).getTotalCount()).isEqualTo(5);
    assertThat(result.metric(Metric.OUTPUT_TOKENS).max()).isEqualTo(6.0);
  }

  @Test
  void tokenSourcesAndDisagreementsOfMeasuredRequests() {
    StageResult.TokenAccounting tokens = result.tokens();
    assertThat(tokens.outputSources().get(TokenCountSource.USAGE)).isEqualTo(1); // B
    assertThat(tokens.outputSources().get(TokenCountSource.CHUNKS)).isEqualTo(2); // C, D
    assertThat(tokens.outputSources().get(TokenCountSource.TOKENIZER)).isZero();
    assertThat(tokens.usageChunkDisagreements()).isEqualTo(1); // B: 6 tokens in 3 chunks
    assertThat(tokens.promptOverhead().count()).isEqualTo(1);
    assertThat(tokens.promptOverhead().meanTokens()).isEqualTo(5.0); // 20 − 15
  }

  @Test
  void perSecondSeriesCoversTheWholeStage() {
    TimeSeries ts = result.timeSeries();
    assertThat(ts.seconds()).isEqualTo(7);
    long[] tokens = new long[7];
    long[] completed = new long[7];
    long[] failed = new long[7];
    double[] inFlight = new double[7];
    for (int s = 0; s < 7; s++) {
      tokens[s] = ts.outputTokens(s);
      completed[s] = ts.completed(s);
      failed[s] = ts.failed(s);
      inFlight[s] = ts.meanInFlight(s);
    }
    assertThat(tokens).containsExactly(0, 2, 2, 3, 3, 3, 4);
    assertThat(completed).containsExactly(0, 0, 1, 0, 1, 0, 2);
    assertThat(failed).containsExactly(0, 0, 0, 0, 0, 1, 0);
    assertThat(inFlight).containsExactly(new double[] {0, 1, 1, 2, 1.5, 1.8, 1.15}, within(1e-12));
    // s4: C 1 + D 0.5; s5: C 1 + D 0.8; s6: C 0.4 + E 0.75 (6.2 to 6.95)
    // First tokens: A 1.5 (s1), B 3.0 (s3), D 5.0 and C 5.5 (s5), E 6.5 (s6).
    assertThat(ts.firstTokens(5)).isEqualTo(2);
    assertThat(ts.meanTtftNanos(5)).isEqualTo(1.5e9); // (0.5 s + 2.5 s) / 2
    assertThat(ts.meanTtftNanos(0)).isNaN();
    assertThat(ts.windowStartOffsetNanos()).isEqualTo(2_000_000_000L);
  }

  @Test
  void clientLagIsRecordedInsideTheWindowOnly() {
    assertThat(result.clientHealth().loopLagMillis().count()).isEqualTo(1);
    assertThat(result.clientHealth().loopLagMillis().max()).isCloseTo(2.0, withinPercentage(0.1));
    assertThat(result.clientHealth().sendLagMillis().count()).isEqualTo(1);
    assertThat(result.clientHealth().cpuSeconds()).isEqualTo(0.7);
    assertThat(result.clientHealth().cpuFractionOfOneCore()).isCloseTo(0.1, within(1e-12));
    assertThat(result.clientHealth().outputTokensPerCpuSecond())
        .isCloseTo(17 / 0.7, within(1e-9)); // all 17 tokens of the stage
    assertThat(result.clientHealth().bottleneck()).isFalse();
  }

  @Test
  void finishedRecorderRefusesMoreCalls() {
    assertThatIllegalStateException().isThrownBy(() -> recorder.loopLag(1));
  }

  @Test
  void windowCutShortEndsAtTheStageEndAndIsMarkedIncomplete() {
    StageRecorder r = new StageRecorder(PLAN, at(0));
    r.windowStarted(at(1.0));
    RequestTimeline t =
        Timelines.request(1, Phase.MEASURED, at(1.0), 10).sent(at(1.0))
            .chunks(at(1.5), at(2.5)).completedAtLastChunk(at(2.5));
    r.requestSent(t, at(1.0));
    r.requestEnded(t, RequestMetrics.of(t, null));
    StageResult res = r.finish(at(3.0), ClientCpu.UNKNOWN);
    assertThat(res.window().complete()).isFalse();
    assertThat(res.window().lengthNanos()).isEqualTo(2_000_000_000L);
    assertThat(res.throughput().outputTokensPerSecond()).isEqualTo(1.0);
    assertThat(res.throughput().achievedConcurrency()).isCloseTo(0.75, within(1e-12));
    assertThat(res.clientHealth().cpuSeconds()).isNaN();
  }

  @Test
  void requestsCancelledByTheToolAreNeitherCompletedNorFailed() {
    StageRecorder r = new StageRecorder(PLAN, at(0));
    r.windowStarted(at(0));
    RequestTimeline cut =
        Timelines.request(1, Phase.MEASURED, at(1.0), 10).sent(at(1.0))
            .chunks(at(1.5)).failed(new Outcome.Cancelled("stage ended"), at(2.5));
    RequestTimeline broken =
        Timelines.request(2, Phase.MEASURED, at(1.0), 10).sent(at(1.0))
            .chunks(at(1.5)).failed(new Outcome.TimedOut(TimeoutKind.IDLE), at(2.5));
    r.requestSent(cut, at(1.0));
    r.requestSent(broken, at(1.0));
    r.requestEnded(cut, RequestMetrics.of(cut, null));
    r.requestEnded(broken, RequestMetrics.of(broken, null));
    StageResult res = r.finish(at(3.0), ClientCpu.UNKNOWN);
    // The timeout is the server's failure; the cancellation is the tool's own (issue 43): it is in
    // no count, no error class and no chart bar.
    assertThat(res.errors()).containsOnlyKeys(ErrorClass.TIMEOUT_IDLE);
    assertThat(res.requests().failed()).isEqualTo(1);
    assertThat(res.requests().byPhase().get(Phase.MEASURED).failed()).isEqualTo(1);
    assertThat(res.timeSeries().failed(2)).isEqualTo(1);
    assertThat(res.timeSeries().completed(2)).isZero();
  }

  @Test
  void requestThatNeverLeftDoesNotLeaveTheInFlightCount() {
    StageRecorder r = new StageRecorder(PLAN, at(0));
    r.windowStarted(at(0));
    RequestTimeline refused =
        Timelines.request(1, Phase.MEASURED, at(1.0), 10)
            .failed(new Outcome.ConnectFailed("refused"), at(1.1));
    r.requestEnded(refused, RequestMetrics.of(refused, null));
    assertThat(r.live(at(1.2)).inFlight()).isZero();
    StageResult res = r.finish(at(2.0), ClientCpu.UNKNOWN);
    assertThat(res.errors()).containsEntry(ErrorClass.CONNECT, 1L);
    assertThat(res.throughput().achievedConcurrency()).isZero();
  }

  @Test
  void windowIsHalfOpenAtItsEdges() {
    StageRecorder r = new StageRecorder(PLAN, at(0));
    RequestTimeline t =
        Timelines.request(1, Phase.WARMUP, at(0.5), 10).sent(at(0.5))
            .chunks(at(1.0) - 1, at(1.0), at(1.5), at(2.0) - 1, at(2.0))
            .completedAtLastChunk(at(2.0));
    r.requestSent(t, at(0.5));
    r.windowStarted(at(1.0));
    r.windowEnded(at(2.0));
    r.requestEnded(t, RequestMetrics.of(t, null));
    StageResult res = r.finish(at(2.5), ClientCpu.UNKNOWN);
    // [1.0, 2.0): the chunk 1 ns before the start and the one at the end are out.
    assertThat(res.throughput().windowOutputTokens()).isEqualTo(3);
    assertThat(res.throughput().achievedConcurrency()).isEqualTo(1.0);
    assertThat(res.requests().completed()).isZero(); // a warm-up request
  }

  @Test
  void aTimeDaysAfterTheStartIsRefusedNotAllocated() {
    StageRecorder r = new StageRecorder(PLAN, at(0));
    long eightDays = 8L * 24 * 3600 * 1_000_000_000L;
    RequestTimeline t =
        Timelines.request(1, Phase.WARMUP, at(0), 10).sent(at(0))
            .chunks(at(0) + eightDays).completedAtLastChunk(at(0) + eightDays);
    r.requestSent(t, at(0));
    org.assertj.core.api.Assertions.assertThatIllegalArgumentException()
        .isThrownBy(() -> r.requestEnded(t, RequestMetrics.of(t, null)))
        .withMessageContaining("exceeds 604800 s");
  }

  @Test
  void liveStatsFollowTheWriter() {
    StageRecorder r = new StageRecorder(PLAN, at(0));
    RequestTimeline t =
        Timelines.request(1, Phase.WARMUP, at(0.1), 10).sent(at(0.1))
            .chunks(at(0.3), at(0.4), at(0.5)).completedAtLastChunk(at(0.5));
    r.requestSent(t, at(0.1));
    LiveStats before = r.live(at(0.2));
    assertThat(before.inFlight()).isEqualTo(1);
    assertThat(before.ttftP50Nanos()).isEqualTo(-1);
    r.requestEnded(t, RequestMetrics.of(t, null));
    LiveStats after = r.live(at(1.5));
    assertThat(after.elapsedNanos()).isEqualTo(1_500_000_000L);
    assertThat(after.phase()).isEqualTo(Phase.WARMUP);
    assertThat(after.inFlight()).isZero();
    assertThat(after.completed()).isEqualTo(1);
    assertThat(after.outputTokensPerSecond()).isEqualTo(2.0); // 3 tokens over 1.5 s
    assertThat((double) after.ttftP50Nanos()).isCloseTo(2e8, withinPercentage(0.1));
  }
}

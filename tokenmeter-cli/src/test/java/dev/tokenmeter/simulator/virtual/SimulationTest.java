package dev.tokenmeter.simulator.virtual;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import dev.tokenmeter.core.analysis.Metric;
import dev.tokenmeter.core.analysis.StageResult;
import dev.tokenmeter.core.load.Arrivals;
import dev.tokenmeter.core.load.LoadModel;
import dev.tokenmeter.core.load.StagePlan;
import dev.tokenmeter.core.load.StopCondition;
import dev.tokenmeter.core.loadgen.RequestSource;
import dev.tokenmeter.core.loadgen.Timeouts;
import dev.tokenmeter.core.request.ErrorClass;
import dev.tokenmeter.core.request.Phase;
import dev.tokenmeter.core.request.Prompt;
import dev.tokenmeter.core.request.RequestSpec;
import dev.tokenmeter.core.request.RequestTimeline;
import dev.tokenmeter.simulator.engine.EngineConfig;
import dev.tokenmeter.simulator.engine.Presets;
import dev.tokenmeter.simulator.engine.Roofline;
import dev.tokenmeter.simulator.engine.Variation;
import dev.tokenmeter.workload.LengthSpec;
import dev.tokenmeter.workload.SyntheticWorkload;
import java.util.ArrayList;
import java.util.List;
import java.util.OptionalInt;
import org.junit.jupiter.api.Test;

/** bench's stage runner over the batch engine in virtual time: figures checked by hand. */
class SimulationTest {
  private static final long S = 1_000_000_000L;
  private static final EngineConfig LLAMA_8B_H100 =
      EngineConfig.of(Presets.model("llama-3.1-8b"), Presets.gpu("h100-sxm"));
  private static final Timeouts NONE = new Timeouts(0, 0, 0);

  private final List<RequestTimeline> finished = new ArrayList<>();

  private static RequestSource fixed(int promptTokens, int outputTokens) {
    return id ->
        new RequestSpec(id, new Prompt.Text("p"), promptTokens, true, OptionalInt.of(outputTokens));
  }

  private static StagePlan closed(int users, long seed) {
    return new StagePlan(0, new LoadModel.Closed(users, 0), new StopCondition.Duration(10 * S), 2 * S, S, seed);
  }

  private StageResult run(StagePlan plan, RequestSource source) {
    Simulation sim = new Simulation(LLAMA_8B_H100, NONE, 256, (t, m) -> finished.add(t), null);
    return sim.runStage(plan, source);
  }

  @Test
  void oneUserSeesTheRooflineDecodeTimeBetweenTokens() {
    // 100 prompt tokens, 16 output. Token k ≥ 1 is the decode of one token over 100 + k − 1 cached
    // tokens: (15,009,849,344 + (100 + k) × 131,072) B / (3.35 TB/s × 0.88) + sampling 348 ns +
    // one graph launch 20 µs + vLLM's fitted 2.0 ms + 1 × 7.5 µs (the compute term, 26 µs, adds
    // under 1 ns through the smooth roofline's cube).
    // k = 1: 5,096,027 + 348 + 2,027,500 = 7,123,875 ns (RooflineTest); each later token reads
    // one more token of KV cache: + 131,072 / 2.948e12 s = 44.46 ns.
    StageResult r = run(closed(1, 1), fixed(100, 16));

    RequestTimeline t =
        finished.stream().filter(x -> x.phase() == Phase.MEASURED).findFirst().orElseThrow();
    assertThat(t.chunkCount()).isEqualTo(16);
    assertThat(t.chunkNanos(1) - t.chunkNanos(0)).isEqualTo(7_123_875L);
    Roofline roofline = new Roofline(LLAMA_8B_H100);
    for (int k = 1; k < 16; k++) {
      long gap = t.chunkNanos(k) - t.chunkNanos(k - 1);
      assertThat(gap).isEqualTo(roofline.iterationNanos(1, 100 + k, 100 + k - 1, 1));
      assertThat(gap).isCloseTo(7_123_875L + Math.round((k - 1) * 44.46), within(2L));
    }
    // Prefill of 100 tokens is memory-bound too, but not by far: c = 1.5 TFLOP at 0.725 × 0.803 ×
    // 989.4 TFLOP/s = 2,610,455 ns, m = (15,009,849,344 + 100 × 131,072) / 2.948e12 s = 5,095,983
    // ns, the smooth roofline m × (1 + (c/m)³)^(1/3) = 5,314,788 ns; + 348 ns + 2.0275 ms =
    // 7,342,636 ns; no network, so TTFT is exactly that.
    assertThat(t.firstTokenNanos() - t.sentNanos()).isEqualTo(roofline.iterationNanos(100, 100 * 101 / 2.0, 0, 1));
    assertThat(t.firstTokenNanos() - t.sentNanos()).isCloseTo(7_342_636L, within(2L));
    // Histograms keep 3 significant digits.
    assertThat(r.metric(Metric.ITL).mean()).isCloseTo(7.13, within(0.01));
    assertThat(r.metric(Metric.TPOT).p50()).isCloseTo(7.13, within(0.01));
    assertThat(r.metric(Metric.TTFT).p50()).isCloseTo(7.34, within(0.01));
    assertThat(r.errors()).isEmpty();
    assertThat(r.clientHealth().bottleneck()).isFalse();
    assertThat(r.clientHealth().loopLagMillis().max()).isZero();
  }

  @Test
  void perUserTpsFallsAndAggregateTpsClimbsWithConcurrency() {
    var workload = new SyntheticWorkload(new LengthSpec.Uniform(200, 800), new LengthSpec.Fixed(256), 7);
    StageResult one = run(closed(1, 7), workload);
    StageResult many = run(closed(64, 7), workload);

    assertThat(many.metric(Metric.DECODE_TPS).p50()).isLessThan(one.metric(Metric.DECODE_TPS).p50());
    assertThat(many.throughput().outputTokensPerSecond())
        .isGreaterThan(10 * one.throughput().outputTokensPerSecond());
    // One user decodes at ~1 / 7.15 ms ≈ 140 tokens/s (7.13 ms + 44.5 ns per token of its ~650
    // of context), and gets nearly all of them: the prefill (≤ 800 tokens, compute-bound, ≤ 24 ms)
    // is ~1% of the 256 × 7.15 ms a request takes.
    assertThat(one.metric(Metric.DECODE_TPS).p50()).isBetween(136.0, 144.0);
    assertThat(one.throughput().outputTokensPerSecond()).isBetween(132.0, 143.0);
    assertThat(many.throughput().achievedConcurrency()).isCloseTo(64.0, within(0.5));
    assertThat(many.clientHealth().bottleneck()).isFalse();
    assertThat(many.errors()).isEmpty();
  }

  @Test
  void theSameSeedGivesTheSameResults() {
    StagePlan plan =
        new StagePlan(0, new LoadModel.Open(40, new Arrivals.Poisson(), OptionalInt.empty()),
            new StopCondition.Duration(10 * S), 2 * S, S, 11);
    var workload = new SyntheticWorkload(new LengthSpec.Uniform(100, 2000), new LengthSpec.Uniform(50, 400), 11);
    StageResult a = run(plan, workload);
    StageResult b = run(plan, workload);

    assertThat(a.requests().completed()).isGreaterThan(300); // 40/s over 10 s
    assertThat(b.metrics()).isEqualTo(a.metrics());
    assertThat(b.throughput()).isEqualTo(a.throughput());
    assertThat(b.requests()).isEqualTo(a.requests());
    assertThat(b.window()).isEqualTo(a.window());
    assertThat(b.steadyState()).isEqualTo(a.steadyState());
    assertThat(b.histograms()).isEqualTo(a.histograms());
  }

  @Test
  void aRequestLongerThanTheContextIsRefusedWith400() {
    // Llama 3.1's context is 131,072 tokens; the KV cache holds 442,704.
    StageResult r = run(closed(1, 1), fixed(131_000, 100));

    assertThat(r.requests().completed()).isZero();
    assertThat(r.errors()).containsKey(ErrorClass.HTTP_4XX);
  }

  @Test
  void anInterruptStopsTheStageAtOnceAndMarksItIncomplete() {
    // A sink that interrupts after the 20th finished request: "Ctrl-C" at a known event.
    Simulation[] sim = new Simulation[1];
    sim[0] = new Simulation(LLAMA_8B_H100, NONE, 256, (t, m) -> {
      finished.add(t);
      if (finished.size() == 20) {
        sim[0].interrupt("interrupted (test)");
      }
    }, null);
    StageResult r = sim[0].runStage(closed(1, 1), fixed(100, 16));
    assertThat(sim[0].interrupted()).isTrue();
    assertThat(r.window().complete()).isFalse();
    // one user: 20 requests of 16 tokens at ~10.4 ms are ~3.3 s, in the warm-up of a 13 s stage;
    // the one in flight is cancelled, nothing after it starts
    assertThat(sim[0].nanos()).isLessThan(4 * S);
    assertThat(finished).hasSize(21);
    assertThat(finished.get(20).outcome()).isInstanceOf(dev.tokenmeter.core.request.Outcome.Cancelled.class);
  }

  @Test
  void arrivalJitterDelaysTheFirstTokenAndAnAbortOnTheWayNeverReachesTheEngine() {
    // One user, no iteration spread, requests reaching the scheduler up to 10 ms after their send:
    // TTFT is the exact 7.343 ms prefill-and-first-token step plus a delay in [0, 10 ms].
    Simulation varied = new Simulation(LLAMA_8B_H100, NONE, 256, (t, m) -> finished.add(t), null, 0,
        new Variation(0, 10_000_000L, 3));
    StageResult r = varied.runStage(closed(1, 1), fixed(100, 16));
    var ttft = r.metric(Metric.TTFT);
    assertThat(ttft.min()).isBetween(7.1, 7.6);
    assertThat(ttft.max()).isBetween(14.5, 17.4);
    assertThat(ttft.mean()).isCloseTo(7.343 + 5.0, within(0.5)); // uniform: + 5 ms on average

    // A first-token deadline of 1 s against a jitter of up to 1,000 s: every request times out on
    // its way (with seed 5 none of the ~50 draws falls under 1 s), is dropped before it reaches the
    // scheduler, and the engine never runs an iteration.
    finished.clear();
    Simulation late = new Simulation(LLAMA_8B_H100, new Timeouts(S, 0, 0), 256,
        (t, m) -> finished.add(t), null, 0, new Variation(0, 1_000 * S, 5));
    StageResult dropped = late.runStage(closed(4, 1), fixed(100, 16));
    assertThat(dropped.requests().completed()).isZero();
    assertThat(late.endpoint().requestsStarted()).isGreaterThan(40); // 4 users × 13 s / ~1 s
    assertThat(late.endpoint().iterations()).isZero();
  }
}

package dev.tokenmeter.simulator;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tokenmeter.simulator.engine.EngineConfig;
import dev.tokenmeter.simulator.engine.Presets;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/** The real-time adapter driven by a fake ticker: the call sequence a {@link Generation} makes. */
class EngineTimingTest {
  private static final EngineConfig IDEAL =
      EngineConfig.of(Presets.model("llama-3.1-8b"), Presets.gpu("h100-sxm"))
          .withEfficiency(1, 1, 0, 0);

  private final AtomicLong now = new AtomicLong(1_000_000_000L);

  private static GenerationRequest request(long id, int prompt, int output, long arrivalNanos) {
    return new GenerationRequest(
        id, GenerationRequest.Api.CHAT, true, prompt, output, output, arrivalNanos);
  }

  @Test
  void aLoneRequestGetsThePrefillThenOneDecodeIterationPerToken() {
    EngineTiming timing = new EngineTiming(IDEAL, now::get);
    long arrival = now.get();
    GenerationRequest r = request(1, 100, 3, arrival);
    long ttft = timing.firstTokenDelayNanos(r);
    // 100-token prefill, memory-bound: (15,009,849,344 + 100 × 131,072) / 3.35e12 = 4,484,465 ns,
    // 4,594,124 ns with its 1,892,580 ns of compute through the smooth roofline (BatchEngineTest),
    // + sampling 306 ns + one CUDA graph launch, 20 µs (RooflineTest)
    assertThat(ttft).isEqualTo(4_594_124L + 20_306);
    now.set(arrival + ttft + 50_000); // token 0 written 50 µs late: the schedule does not move
    assertThat(timing.interTokenDelayNanos(r, 1)).isEqualTo(4_484_504L + 20_306);
    assertThat(timing.running()).isEqualTo(1);
    now.addAndGet(4_484_504L + 20_306);
    assertThat(timing.interTokenDelayNanos(r, 2)).isEqualTo(4_484_543L + 20_306);
    // the engine retires a sequence when the iteration making its last token is composed
    assertThat(timing.running()).isZero();
    timing.onFinish(r);
  }

  @Test
  void aChunkedPromptIsNotYetKnownUntilItsLastChunkStarts() {
    EngineTiming timing = new EngineTiming(IDEAL.withLimits(256, 2048), now::get);
    GenerationRequest r = request(1, 5_000, 2, now.get());
    assertThat(timing.firstTokenDelayNanos(r)).isEqualTo(TimingModel.NOT_YET);
    long firstChunkEnd = timing.retryAtNanos(r);
    assertThat(firstChunkEnd).isGreaterThan(now.get());
    now.set(firstChunkEnd);
    assertThat(timing.firstTokenDelayNanos(r)).isEqualTo(TimingModel.NOT_YET);
    now.set(timing.retryAtNanos(r));
    long ttft = timing.firstTokenDelayNanos(r);
    assertThat(ttft).isGreaterThan(now.get() - r.arrivalNanos());
  }

  @Test
  void aLaterArrivalJoinsTheNextIterationAndSlowsTheOneDecoding() {
    EngineTiming timing = new EngineTiming(IDEAL, now::get);
    GenerationRequest a = request(1, 100, 50, now.get());
    long dueA = a.arrivalNanos() + timing.firstTokenDelayNanos(a);
    now.set(dueA);
    long aloneItl = timing.interTokenDelayNanos(a, 1);
    dueA += aloneItl;
    // b arrives in the middle of a's decode iteration: it waits for the next one
    GenerationRequest b = request(2, 2_000, 5, dueA - aloneItl / 2);
    now.set(b.arrivalNanos());
    assertThat(timing.firstTokenDelayNanos(b)).isEqualTo(TimingModel.NOT_YET);
    assertThat(timing.retryAtNanos(b)).isEqualTo(dueA);
    now.set(dueA);
    long ttftB = timing.firstTokenDelayNanos(b);
    long sharedItl = timing.interTokenDelayNanos(a, 2);
    // both come out of the same iteration: b's prefill of 2,000 tokens beside a's decode
    assertThat(b.arrivalNanos() + ttftB).isEqualTo(dueA + sharedItl);
    assertThat(sharedItl).isGreaterThan(aloneItl);
    assertThat(timing.running()).isEqualTo(2);
    timing.onFinish(b); // b's client went away: its KV cache is freed
    assertThat(timing.running()).isEqualTo(1);
  }

  @Test
  void maxModelLenIsTheContextCappedByTheKvCache() {
    assertThat(new EngineTiming(IDEAL, now::get).maxModelLen()).isEqualTo(131_072);
    EngineConfig small = IDEAL.withMemory((16_060_522_496.0 + 2 * 1_000 * 131_072.0) / (80.0 * (1L << 30)), 0);
    assertThat(new EngineTiming(small, now::get).maxModelLen()).isEqualTo(2_000);
  }

  @Test
  void requestsSharingASystemPromptPrefillItOnce() {
    EngineTiming timing = new EngineTiming(IDEAL, now::get);
    String system = "abcd".repeat(1_024); // 1,024 tokens at 4 characters each
    // chat estimate: 3 + (4 + 1,024) + (4 + 250) = 1,285 tokens
    GenerationRequest a = chat(1, system, "a".repeat(1_000));
    assertThat(a.promptTokens()).isEqualTo(1_285);
    // a: 2 × 7,504,924,672 × 1,285 + 524,288 × 1,285 × 1,286 / 2 FLOPs at 989.4e12 FLOP/s × the
    // H100's achievable share 0.803: 24.822083 ms, with the 4.530829 ms of weights and KV
    // (c³ + m³)^(1/3) = 24.872301 ms, + sampling 306 ns + eager launches (1,285 tokens > 512),
    // 32 × 40 µs
    long ttftA = timing.firstTokenDelayNanos(a);
    assertThat(ttftA).isEqualTo(24_872_301L + 306 + 1_280_000);
    timing.onFinish(a);
    now.addAndGet(ttftA);
    GenerationRequest b = chat(2, system, "b".repeat(1_000));
    // b: blocks 0..63 (the system framing and its first 1,020 tokens) hit; 1,285 − 1,024 = 261
    // tokens are prefilled, compute-bound: (2 × 7,504,924,672 × 261 + 524,288 × (1,025 + … +
    // 1,285)) / (989.4e12 × 0.803) = 5.129868 ms (reading the weights and KV, (15,009,849,344 +
    // 1,285 × 131,072) / 3.35e12, takes 4.530829 ms; near the ridge, (c³ + m³)^(1/3) = 6.109169
    // ms), + graph
    assertThat(timing.firstTokenDelayNanos(b)).isEqualTo(6_109_169L + 20_306);
    assertThat(timing.prefixCacheHitRate()).isEqualTo(1_024.0 / 2_570);
    // off: b pays the full prefill
    EngineTiming cold = new EngineTiming(IDEAL.withPrefixCaching(false), now::get);
    cold.onFinish(a);
    assertThat(cold.firstTokenDelayNanos(chat(3, system, "c".repeat(1_000)))).isEqualTo(ttftA);
    assertThat(cold.prefixCacheHitRate()).isZero();
  }

  private GenerationRequest chat(long id, String system, String user) {
    int[] ids = PromptTokens.chatIds(List.of("system", "user"), List.of(system, user));
    return new GenerationRequest(
        id, GenerationRequest.Api.CHAT, true, ids.length, 1, 1, now.get(), ids);
  }
}

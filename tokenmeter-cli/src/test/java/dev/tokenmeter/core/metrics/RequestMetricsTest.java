package dev.tokenmeter.core.metrics;

import static dev.tokenmeter.core.metrics.RequestMetrics.NONE;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import dev.tokenmeter.core.request.ErrorClass;
import dev.tokenmeter.core.request.Outcome;
import dev.tokenmeter.core.request.RequestTimeline;
import dev.tokenmeter.core.request.TokenCountSource;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

/** Hand-computed timelines through the measurement contract. Times in microseconds × 1000. */
class RequestMetricsTest {
  private static final long US = 1_000;

  /** (value, count) pairs an ITL sink received. */
  private static List<long[]> itl(RequestMetrics m, boolean perToken) {
    List<long[]> out = new ArrayList<>();
    RequestMetrics.ItlSink sink = (v, c) -> out.add(new long[] {v, c});
    if (perToken) {
      m.forEachItlPerToken(sink);
    } else {
      m.forEachItlPerChunk(sink);
    }
    return out;
  }

  private static long itlSum(RequestMetrics m) {
    long[] sum = {0};
    m.forEachItlPerToken((v, c) -> sum[0] += v * c);
    return sum[0];
  }

  @Test
  void oneTokenPerChunkStream() {
    RequestTimeline t =
        Timelines.request(0)
            .connect(1 * US, 3 * US)
            .sent(5 * US)
            .chunks(105 * US, 205 * US, 305 * US, 405 * US)
            .finish(405 * US)
            .usage(12, 4)
            .completed(500 * US);
    RequestMetrics m = RequestMetrics.of(t, null);

    assertThat(m.succeeded()).isTrue();
    assertThat(m.ttftNanos()).isEqualTo(100 * US);
    assertThat(m.ttftFromScheduledNanos()).isEqualTo(105 * US);
    assertThat(m.timeToFirstContentNanos()).isEqualTo(100 * US);
    assertThat(m.e2eNanos()).isEqualTo(400 * US); // done (finish chunk) − sent, not end of body
    assertThat(m.e2eFromScheduledNanos()).isEqualTo(405 * US);
    assertThat(m.connectNanos()).isEqualTo(2 * US);
    assertThat(m.sendLagNanos()).isEqualTo(5 * US);
    assertThat(m.outputTokens()).isEqualTo(4);
    assertThat(m.outputTokenSource()).isEqualTo(TokenCountSource.USAGE);
    assertThat(m.countsDisagree()).isFalse();
    assertThat(m.inputTokens()).isEqualTo(12);
    assertThat(m.inputTokensFromUsage()).isTrue();
    assertThat(m.clientPromptTokens()).isEqualTo(10);
    assertThat(m.tpotNanos()).isEqualTo(100.0 * US); // 300 µs over n − 1 = 3
    assertThat(m.decodeTokensPerSecond()).isCloseTo(10_000.0, within(1e-9));
    assertThat(itl(m, true)).containsExactly(
        new long[] {100 * US, 1}, new long[] {100 * US, 1}, new long[] {100 * US, 1});
    assertThat(itl(m, false)).hasSize(3);
    assertThat(m.e2eNanos() - m.ttftNanos()).isEqualTo(itlSum(m));
  }

  @Test
  void reusedConnectionHasNoConnectTime() {
    RequestTimeline t = Timelines.request(0).sent(1).chunks(10).completedAtLastChunk(10);
    assertThat(RequestMetrics.of(t, null).connectNanos()).isEqualTo(NONE);
  }

  @Test
  void chunkWithSeveralTokensSplitsItsGap() {
    // 8 tokens (usage) over chunks of 2, 4, 2 chars -> k = 2, 4, 2.
    RequestTimeline t =
        Timelines.request(0)
            .sent(0)
            .chunk(100 * US, "ab")
            .chunk(200 * US, "abcd")
            .chunk(400 * US, "ab")
            .finish(400 * US)
            .usage(10, 8)
            .completed(400 * US);
    RequestMetrics m = RequestMetrics.of(t, null);

    assertThat(new int[] {m.chunkTokens(0), m.chunkTokens(1), m.chunkTokens(2)})
        .containsExactly(2, 4, 2);
    assertThat(m.countsDisagree()).isTrue(); // 8 tokens in 3 chunks
    assertThat(m.usageOutputTokens()).isEqualTo(8);
    assertThat(m.chunkCount()).isEqualTo(3);
    assertThat(m.tpotNanos()).isCloseTo(300.0 * US / 7, within(1e-6));
    // gap 100 µs over 4 tokens = 25 µs × 4; gap 200 µs over 2 tokens = 100 µs × 2.
    // The first chunk's second token has no preceding gap: 6 values = n − k0.
    assertThat(itl(m, true)).containsExactly(new long[] {25 * US, 4}, new long[] {100 * US, 2});
    assertThat(itl(m, false)).containsExactly(new long[] {100 * US, 1}, new long[] {200 * US, 1});
    assertThat(m.e2eNanos() - m.ttftNanos()).isEqualTo(itlSum(m));
  }

  @Test
  void unevenSplitKeepsTheExactSum() {
    // 4 tokens over chunks of 1 and 3 chars -> k = 1, 3; a gap of 100 ns over 3 tokens is
    // 34 + 33 + 33.
    RequestTimeline t =
        Timelines.request(0).sent(0).chunk(1000, "a").chunk(1100, "bcd").usage(5, 4)
            .completedAtLastChunk(1100);
    RequestMetrics m = RequestMetrics.of(t, null);
    assertThat(itl(m, true)).containsExactly(new long[] {34, 1}, new long[] {33, 2});
    assertThat(itlSum(m)).isEqualTo(100);
  }

  @Test
  void zeroTokenChunksCarryTheirGapForward() {
    // 2 tokens over chunks of 2, 1, 2 chars: shares 0.8, 0.4, 0.8 -> k = 1, 0, 1.
    RequestTimeline t =
        Timelines.request(0)
            .sent(0)
            .chunk(100 * US, "ab")
            .chunk(250 * US, "c")
            .chunk(400 * US, "de")
            .usage(3, 2)
            .completedAtLastChunk(400 * US);
    RequestMetrics m = RequestMetrics.of(t, null);

    assertThat(m.chunkTokens(1)).isZero();
    // Chunk 1's 150 µs gap rides on chunk 2: one token of 300 µs.
    assertThat(itl(m, true)).containsExactly(new long[] {300 * US, 1});
    assertThat(itl(m, false)).containsExactly(new long[] {150 * US, 1}, new long[] {150 * US, 1});
    assertThat(m.tpotNanos()).isEqualTo(300.0 * US);
    assertThat(m.e2eNanos() - m.ttftNanos()).isEqualTo(itlSum(m));
  }

  @Test
  void usageDisagreeingWithChunksIsKeptAndFlagged() {
    RequestTimeline t =
        Timelines.request(0).sent(0).chunks(10, 20, 30).usage(7, 6).completedAtLastChunk(30);
    RequestMetrics m = RequestMetrics.of(t, null);
    assertThat(m.outputTokens()).isEqualTo(6);
    assertThat(m.outputTokenSource()).isEqualTo(TokenCountSource.USAGE);
    assertThat(m.usageOutputTokens()).isEqualTo(6);
    assertThat(m.chunkCount()).isEqualTo(3);
    assertThat(m.countsDisagree()).isTrue();
    assertThat(m.tpotNanos()).isEqualTo(20.0 / 5);
  }

  @Test
  void reasoningThenContent() {
    RequestTimeline t =
        Timelines.request(0)
            .sent(0)
            .reasoning(100 * US, "hmm")
            .reasoning(200 * US, "so")
            .chunk(300 * US, "Yes")
            .chunk(400 * US, ".")
            .completedAtLastChunk(400 * US);
    // A tokenizer is given but the timeline kept no reasoning text: fall back to chunks.
    RequestMetrics m = RequestMetrics.of(t, text -> 1000);
    assertThat(m.ttftNanos()).isEqualTo(100 * US);
    assertThat(m.timeToFirstContentNanos()).isEqualTo(300 * US);
    assertThat(m.outputTokens()).isEqualTo(4);
    assertThat(m.outputTokenSource()).isEqualTo(TokenCountSource.CHUNKS);
  }

  @Test
  void tokenizerCountsAnswerTextWithoutUsage() {
    RequestTimeline t =
        Timelines.request(0).sent(0).chunk(10, "Hello").chunk(20, " world").completedAtLastChunk(20);
    RequestMetrics m = RequestMetrics.of(t, text -> text.toString().split(" ").length + 1);
    assertThat(m.outputTokens()).isEqualTo(3);
    assertThat(m.outputTokenSource()).isEqualTo(TokenCountSource.TOKENIZER);
    assertThat(m.countsDisagree()).isFalse(); // only usage can disagree
    assertThat(m.inputTokens()).isEqualTo(10); // no usage: the client's count
    assertThat(m.inputTokensFromUsage()).isFalse();
  }

  @Test
  void singleTokenHasNoTpot() {
    RequestTimeline t = Timelines.request(0).sent(0).chunks(50).usage(3, 1).completedAtLastChunk(60);
    RequestMetrics m = RequestMetrics.of(t, null);
    assertThat(m.tpotNanos()).isNaN();
    assertThat(m.decodeTokensPerSecond()).isNaN();
    assertThat(itl(m, true)).isEmpty();
    assertThat(m.ttftNanos()).isEqualTo(50);
  }

  @Test
  void allTokensInOneReadHaveNoTpotAndNoDecodeSpeed() {
    RequestTimeline t = Timelines.request(0).sent(0).chunk(50, "abc").usage(3, 3)
        .completedAtLastChunk(50);
    RequestMetrics m = RequestMetrics.of(t, null);
    assertThat(m.tpotUndefined()).isTrue();
    assertThat(m.tpotNanos()).isNaN(); // undefined, not 0
    assertThat(m.decodeTokensPerSecond()).isNaN(); // not infinite
    assertThat(m.outputTokens()).isEqualTo(3);
  }

  @Test
  void tokensInTwoReadsAtTheSameNanosecondHaveNoTpotEither() {
    // Two chunks decoded from one read share its timestamp: still no decode time to divide.
    RequestTimeline t = Timelines.request(0).sent(0).chunk(50, "ab").chunk(50, "c").usage(3, 3)
        .completedAtLastChunk(50);
    RequestMetrics m = RequestMetrics.of(t, null);
    assertThat(m.tpotUndefined()).isTrue();
    assertThat(m.decodeTokensPerSecond()).isNaN();
  }

  @Test
  void failedRequestKeepsTheTimingsItHas() {
    RequestTimeline t =
        Timelines.request(0).sent(10).chunks(110, 210).failed(new Outcome.Truncated("eof"), 500);
    RequestMetrics m = RequestMetrics.of(t, null);
    assertThat(m.succeeded()).isFalse();
    assertThat(m.errorClass()).isEqualTo(ErrorClass.TRUNCATED);
    assertThat(m.ttftNanos()).isEqualTo(100);
    assertThat(m.e2eNanos()).isEqualTo(200); // no finish: done falls back to the last token
    assertThat(m.outputTokens()).isEqualTo(2);
    assertThat(m.outputTokenSource()).isEqualTo(TokenCountSource.CHUNKS);
    assertThat(m.tpotNanos()).isEqualTo(100.0);
  }

  @Test
  void requestThatNeverLeftHasNoLatencies() {
    RequestTimeline t =
        Timelines.request(100).failed(new Outcome.ConnectFailed("refused"), 300);
    RequestMetrics m = RequestMetrics.of(t, null);
    assertThat(m.errorClass()).isEqualTo(ErrorClass.CONNECT);
    assertThat(m.ttftNanos()).isEqualTo(NONE);
    assertThat(m.ttftFromScheduledNanos()).isEqualTo(NONE);
    assertThat(m.e2eNanos()).isEqualTo(NONE);
    assertThat(m.e2eFromScheduledNanos()).isEqualTo(200); // done falls back to the end
    assertThat(m.sendLagNanos()).isEqualTo(NONE);
    assertThat(m.outputTokens()).isZero();
    assertThat(m.tpotNanos()).isNaN();
  }

  @Test
  void e2eMinusTtftEqualsSumOfItlOnRandomStreams() {
    Random random = new Random(42);
    int checked = 0;
    for (int round = 0; round < 1000; round++) {
      Timelines b = Timelines.request(0).sent(random.nextInt(1000));
      long at = 1_000 + random.nextInt(1_000_000);
      int chunks = 1 + random.nextInt(50);
      for (int i = 0; i < chunks; i++) {
        b.chunk(at, "x".repeat(1 + random.nextInt(6)));
        at += random.nextInt(3) == 0 ? 0 : random.nextInt(100_000); // same-read chunks too
      }
      if (random.nextBoolean()) {
        b.usage(5, random.nextInt(3 * chunks + 1));
      }
      RequestMetrics m = RequestMetrics.of(b.completedAtLastChunk(at + 5), null);
      long tokens = 0;
      for (int i = 0; i < m.chunkCount(); i++) {
        tokens += m.chunkTokens(i);
      }
      assertThat(tokens).isEqualTo(m.outputTokens());
      if (m.chunkTokens(m.chunkCount() - 1) > 0) {
        assertThat(m.e2eNanos() - m.ttftNanos()).isEqualTo(itlSum(m));
        checked++;
      }
    }
    assertThat(checked).isGreaterThan(500);
  }

  @Test
  void theMetricsOfAnUnfinishedRequestAreRefused() {
    RequestTimeline t = Timelines.request(0).sent(0).timeline();
    org.assertj.core.api.Assertions.assertThatIllegalArgumentException()
        .isThrownBy(() -> RequestMetrics.of(t, null));
  }
}

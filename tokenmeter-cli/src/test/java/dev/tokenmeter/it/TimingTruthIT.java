package dev.tokenmeter.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import dev.tokenmeter.core.analysis.Metric;
import dev.tokenmeter.core.metrics.RequestMetrics;
import dev.tokenmeter.core.request.Outcome;
import dev.tokenmeter.core.request.Phase;
import dev.tokenmeter.core.request.RequestTimeline;
import dev.tokenmeter.core.request.TokenCountSource;
import dev.tokenmeter.simulator.EmissionRecord;
import dev.tokenmeter.testkit.SimFixture;
import dev.tokenmeter.testkit.StageKit;
import dev.tokenmeter.testkit.StageRun;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * The client's timestamps against the server's ground truth, token by token, over loopback.
 *
 * <p>Server: TTFT 50 ms, ITL 20 ms, 26 to 35 tokens (ignore_eos), so a request lasts 550-730 ms.
 * Client and server read the same CLOCK_MONOTONIC, so {@code chunk arrival − server write} is the
 * delivery delay: loopback plus waking the client's event loop, 0.05-0.3 ms on an idle core.
 *
 * <p>Bounds, and why they are what they are: this machine has 2 cores shared with other builds
 * (load average 3-4 while these tests were written, a 1,000-stream benchmark among them). A thread
 * woken by a socket or a timer then waits for a core now and then: single requests were seen 2-10
 * ms late on one leg (the server reading the request, the client's write callback stamping {@code
 * sent}, the client reading the first token). Hence per-chunk delivery within 100 ms (a scheduler
 * stall, not a bug: a wrong timestamp is off by a whole TTFT or ITL, 20-730 ms) with 95% within 5
 * ms; TTFT compared over the measured requests (10 at c=1, 30 at c=10; the warm-up round, sent at
 * once on new connections, queues at the server's accept and read, see below) by the median (one
 * stalled request cannot move it) and by 80% within 5 ms; ITL means within 0.5 ms, because a
 * delivery delay moves both ends of a gap alike. The TTFT median is held to 1 ms at c=10 but 2 ms
 * at c=1: there every token wakes a sleeping event loop, and at load 4 that alone cost 1-2.5 ms
 * per request in about one run of four (means near 0.5 ms otherwise). With 3 event loops
 * ({@code bench --event-loops 3}) the stamps are taken on the loop that reads the socket, whatever
 * the delay of handing each token on to the engine's loop, so the same bounds hold.
 */
@Timeout(60)
class TimingTruthIT {
  private static final long MS = 1_000_000L;

  /** Most tokens a request asks for; see {@link #tokens}. */
  private static final int MAX_TOKENS = 35;

  private static final long MAX_DELIVERY_NANOS = 100 * MS;
  private static final long P95_DELIVERY_NANOS = 5 * MS;

  @BeforeAll
  static void warmUp() {
    StageKit.warmUpOnce();
  }

  /**
   * 26 to 35 tokens by id: requests of one round end 20 ms apart, so the next round's sends are
   * spread out rather than read by the server as one burst (whose queueing the server's TTFT,
   * measured from its read, leaves out).
   */
  static int tokens(long id) {
    return 26 + (int) (id % 10);
  }

  @ParameterizedTest(name = "c={0}, {3} event loops")
  @CsvSource({"1, 10, 2.0, 1", "10, 30, 1.0, 1", "10, 30, 1.0, 3"})
  void clientTimesMatchTheServersEmissionTimes(int users, int measured, double ttftMedianMillis, int loops) {
    StageRun run;
    List<StageRun.Joined> joined;
    try (SimFixture sim = SimFixture.start(SimFixture.config(50, 20))) {
      // Warm-up 300 ms: the first round (new connections) is scheduled before it ends.
      run =
          StageKit.run(
              StageKit.stage(sim)
                  .closed(users)
                  .requests(measured)
                  .warmupMillis(300)
                  .maxTokensById(TimingTruthIT::tokens)
                  .eventLoops(loops));
      sim.awaitAllRecords(2_000);
      joined = run.join(sim);
    }
    // First round is warm-up (`users` requests), then exactly `measured` measured ones.
    assertThat(run.measured()).hasSize(measured);
    assertThat(joined).hasSize(users + measured);

    long[] deliveries = new long[joined.size() * MAX_TOKENS];
    int d = 0;
    double[] ttftDiffs = new double[joined.size()];
    int r = 0;
    long clientGapSum = 0;
    long serverGapSum = 0;
    long itlCount = 0;
    for (StageRun.Joined j : joined) {
      RequestTimeline t = j.timeline();
      RequestMetrics m = j.metrics();
      EmissionRecord truth = j.truth();
      assertThat(t.outcome()).isEqualTo(new Outcome.Completed("length"));
      assertThat(truth.ending()).isEqualTo(EmissionRecord.Ending.LENGTH);
      int n = truth.tokenCount();
      assertThat(n).isEqualTo(tokens(t.id()));
      // Output tokens: the server's count, from usage; one chunk per token.
      assertThat(m.outputTokens()).isEqualTo(n);
      assertThat(m.outputTokenSource()).isEqualTo(TokenCountSource.USAGE);
      assertThat(t.chunkCount()).isEqualTo(n);

      long[] actual = truth.actualNanos();
      for (int i = 0; i < n; i++) {
        long delivery = t.chunkNanos(i) - actual[i];
        // Non-negative: the client cannot receive a token before the server wrote it.
        assertThat(delivery)
            .as("request %d chunk %d delivery", t.id(), i)
            .isBetween(0L, MAX_DELIVERY_NANOS);
        deliveries[d++] = delivery;
      }
      assertThat(t.firstTokenNanos()).isEqualTo(t.chunkNanos(0));
      long serverTtft = actual[0] - truth.arrivalNanos();
      if (t.phase() == Phase.MEASURED) {
        ttftDiffs[r++] = m.ttftNanos() - serverTtft;
      }

      // TPOT from the chunk arrivals and the server's token count, by hand.
      double tpot = (double) (t.chunkNanos(n - 1) - t.chunkNanos(0)) / (n - 1);
      assertThat(m.tpotNanos()).isEqualTo(tpot);

      // The invariant: E2E − TTFT = Σ ITL (finish_reason rides on the last token's chunk).
      long[] itl = new long[2];
      m.forEachItlPerToken(
          (v, c) -> {
            itl[0] += v * c;
            itl[1] += c;
          });
      assertThat(itl[1]).isEqualTo(n - 1);
      assertThat(m.e2eNanos() - m.ttftNanos()).isEqualTo(itl[0]);

      if (t.phase() == Phase.MEASURED) {
        clientGapSum += itl[0];
        serverGapSum += actual[n - 1] - actual[0];
        itlCount += itl[1];
      }
    }
    deliveries = Arrays.copyOf(deliveries, d);
    Arrays.sort(deliveries);
    assertThat(deliveries[(int) (d * 0.95)]).isLessThanOrEqualTo(P95_DELIVERY_NANOS);

    // TTFT: client (firstToken − sent) against server (actual[0] − arrival), measured requests
    // only. The warm-up round's requests go out on new connections in the same millisecond, and
    // the server accepts and reads them one after another: its arrival stamps (taken at its read)
    // fall 2-7 ms after the client's sends, 0.3 ms later for each request in turn (seen at c=10 with
    // two builds beside the test, and in one CI run: 9 of 10 warm-up requests at +5.5 to +6.3 ms).
    // That queue is part of the client's TTFT and rightly so; the server's TTFT leaves it out.
    assertThat(r).isEqualTo(measured);
    ttftDiffs = Arrays.copyOf(ttftDiffs, r);
    Arrays.sort(ttftDiffs);
    double median = (ttftDiffs[(r - 1) / 2] + ttftDiffs[r / 2]) / 2;
    String diffsMs =
        Arrays.toString(Arrays.stream(ttftDiffs).map(x -> Math.round(x / 1e3) / 1e3).toArray());
    assertThat(median)
        .as("client − server TTFT, ms: %s", diffsMs)
        .isCloseTo(0, within(ttftMedianMillis * MS));
    // Not the mean: on a shared machine a few requests wait 100+ ms for a core (seen: 142 ms
    // under a parallel benchmark and the coverage agent), which a mean bound turns into a flaky
    // test. A systematic error (a role chunk taken as the first token, a stamp after parsing)
    // moves most requests, which this catches. The precision target itself (mean within 1 ms) is
    // measured by bench/timing-fidelity.sh, see docs/PERFORMANCE.md.
    // At least 10 requests, so that 80% leaves room for two stalls: with 4 at c=1 the bound was
    // all of them, and one CI run failed on a single request 17.8 ms late (-3.0, -0.2, 0.0, 17.8).
    long within5ms = Arrays.stream(ttftDiffs).filter(x -> Math.abs(x) <= 5.0 * MS).count();
    assertThat(within5ms)
        .as("requests with |client − server TTFT| <= 5 ms; diffs, ms: %s", diffsMs)
        .isGreaterThanOrEqualTo((long) Math.ceil(0.8 * r));
    // ITL per token over the measured requests: client mean against the server's actual gaps.
    double clientItl = (double) clientGapSum / itlCount;
    double serverItl = (double) serverGapSum / itlCount;
    assertThat(clientItl).isCloseTo(serverItl, within(0.5 * MS));
    // The server kept its schedule (due times are exact; writes are late by a little at most).
    assertThat(serverItl).isCloseTo(20.0 * MS, within(0.5 * MS));
    // The stage's histogram agrees (3 significant digits: within 0.1% of 20 ms).
    assertThat(run.result().metric(Metric.ITL).count()).isEqualTo(itlCount);
    assertThat(run.result().metric(Metric.ITL).mean()).isCloseTo(clientItl / MS, within(0.05));
    double meanTokens =
        run.measured().stream().mapToInt(f -> tokens(f.timeline().id())).average().orElseThrow();
    // Histogram mean: bucket medians, exact for integers below 2048 at 3 digits.
    assertThat(run.result().metric(Metric.OUTPUT_TOKENS).mean())
        .isCloseTo(meanTokens, within(1e-9));
    assertThat(run.result().metric(Metric.TTFT).count()).isEqualTo(measured);
  }
}

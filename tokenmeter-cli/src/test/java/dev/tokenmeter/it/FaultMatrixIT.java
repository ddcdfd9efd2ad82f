package dev.tokenmeter.it;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tokenmeter.core.request.ErrorClass;
import dev.tokenmeter.core.request.Phase;
import dev.tokenmeter.report.RequestsJsonlReader;
import dev.tokenmeter.report.RequestsJsonlWriter;
import dev.tokenmeter.report.SavedRequest;
import dev.tokenmeter.simulator.Fault;
import dev.tokenmeter.simulator.Faults;
import dev.tokenmeter.testkit.SimFixture;
import dev.tokenmeter.testkit.StageKit;
import dev.tokenmeter.testkit.StageRun;
import java.nio.file.Path;
import java.util.EnumMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Every simulator fault at 0.1%, 5% and 50% of requests, in a closed and an open loop: each request
 * is counted exactly once, in the class of the fault the server says it injected (its ground
 * truth), or as a success when it injected none; the stage ends within its bound; requests.jsonl
 * holds every request, once; the 5% cells again over 3 event loops. Each cell prints one line of
 * figures (docs/RELIABILITY.md).
 */
class FaultMatrixIT {
  private static final long MS = 1_000_000L;
  private static final int USERS = 16;
  private static final double RATE_PER_S = 500;
  private static final long TIMEOUT_MS = 2_000;

  static final Map<Fault, ErrorClass> CLASS = new EnumMap<>(Map.of(
      Fault.HTTP_429, ErrorClass.HTTP_429,
      Fault.HTTP_500, ErrorClass.HTTP_5XX,
      Fault.HTTP_503, ErrorClass.HTTP_5XX,
      Fault.SLOW_HEADERS, ErrorClass.TIMEOUT_FIRST_TOKEN,
      Fault.DISCONNECT, ErrorClass.TRUNCATED,
      Fault.STALL, ErrorClass.TIMEOUT_IDLE,
      Fault.MALFORMED_CHUNK, ErrorClass.PROTOCOL,
      Fault.ERROR_EVENT, ErrorClass.STREAM_ERROR));

  @TempDir Path tmp;

  static Stream<Arguments> cells() {
    Stream.Builder<Arguments> b = Stream.builder();
    for (Fault f : CLASS.keySet()) {
      for (double rate : new double[] {0.001, 0.05, 0.5}) {
        for (boolean open : new boolean[] {false, true}) {
          b.add(Arguments.of(f, rate, open, 1));
        }
      }
      // The same at 5% over 3 event loops (--event-loops 3): a fault on another loop reaches the
      // engine through the hand-over, and a timeout ends its request there.
      for (boolean open : new boolean[] {false, true}) {
        b.add(Arguments.of(f, 0.05, open, 3));
      }
    }
    return b.build();
  }

  @ParameterizedTest(name = "{0} at {1}, open={2}, {3} event loops")
  @MethodSource("cells")
  void everyRequestIsCountedOnceInItsClass(Fault fault, double rate, boolean open, int loops) throws Exception {
    // 0.1% of 2,000 is 2 faults expected; 5% of 400 is 20, 50% of 200 is 100.
    int n = rate < 0.01 ? 2_000 : rate < 0.1 ? 400 : 200;
    Faults faults = Faults.none().with(fault, rate).withAfterTokens(2)
        .withStallNanos(TIMEOUT_MS * 2 * MS).withSlowHeadersNanos(TIMEOUT_MS * 2 * MS);
    // A healthy request takes ~10 ms (2 ms + 4 x 1 ms) but a JIT warm-up or a busy machine has
    // delayed one by 700 ms: the timeouts are 2 s, and a fault costs at most that. Closed: 100
    // faults x 2 s / 16 users = 12.5 s.
    long boundMillis = open ? (long) (n / RATE_PER_S * 1000) + 2 * TIMEOUT_MS + 10_000 : 30_000;
    Path jsonl = tmp.resolve("requests.jsonl");
    StageRun run;
    List<StageRun.Joined> joined;
    long t0 = System.nanoTime();
    try (SimFixture sim = SimFixture.start(SimFixture.config(2, 1).faults(faults).seed(11));
        RequestsJsonlWriter writer = new RequestsJsonlWriter(jsonl, t0)) {
      StageKit.Spec spec = StageKit.stage(sim).requests(n).maxTokens(5).timeoutsMillis(TIMEOUT_MS, TIMEOUT_MS, 5 * TIMEOUT_MS)
          .stageLimitMillis(boundMillis).alsoTo(writer).eventLoops(loops);
      run = StageKit.run(open ? spec.openConstant(RATE_PER_S, 0) : spec.closed(USERS));
      sim.awaitAllRecords(5_000);
      joined = run.join(sim);
    }
    double seconds = (System.nanoTime() - t0) / 1e9;

    assertThat(run.measured()).hasSize(n);
    assertThat(run.byId()).extracting(f -> f.timeline().id()).doesNotHaveDuplicates();
    Map<ErrorClass, Long> expected = new EnumMap<>(ErrorClass.class);
    long injected = 0;
    for (StageRun.Joined j : joined) {
      Fault truth = j.truth() == null ? Fault.NONE : j.truth().fault();
      ErrorClass want = CLASS.get(truth);
      if (j.timeline().phase() != Phase.MEASURED) {
        // Sent after the n-th, cut by the stage's end: the tool's own cancellation, or its fault.
        assertThat(j.metrics().errorClass()).as(j.describe()).isIn(ErrorClass.CANCELLED, want);
        continue;
      }
      assertThat(j.metrics().errorClass()).as(j.describe()).isEqualTo(want);
      if (want != null) {
        injected++;
        expected.merge(want, 1L, Long::sum);
      }
    }
    // How many the simulator injected (its own record, joined by request id): a cell whose fault
    // never fired would classify nothing and pass; seed 11 draws 3 in 2,000 at 0.1%, and the
    // others stay within 4.5 standard deviations of rate x n (binomial).
    double mean = rate * n;
    double sigma = Math.sqrt(n * rate * (1 - rate));
    assertThat(injected).as("faults the simulator injected among %d measured requests", n)
        .isBetween(Math.max(1L, (long) Math.floor(mean - 4.5 * sigma)), (long) Math.ceil(mean + 4.5 * sigma));
    assertThat(run.result().errors()).isEqualTo(expected);
    assertThat(run.result().requests().completed() + run.result().requests().failed()).isEqualTo(n);
    RequestsJsonlReader.Lines lines = RequestsJsonlReader.read(jsonl);
    assertThat(lines.tornLines()).isZero();
    assertThat(lines.requests()).extracting(SavedRequest::id)
        .containsExactlyInAnyOrderElementsOf(run.byId().stream().map(f -> f.timeline().id()).toList());
    System.out.printf(Locale.ROOT, "fault-matrix %s rate=%.3f %s loops=%d n=%d injected=%d seconds=%.1f%n",
        fault, rate, open ? "open" : "closed", loops, n, injected, seconds);
  }
}

package dev.tokenmeter.it;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tokenmeter.client.SpreadEndpoint;
import dev.tokenmeter.core.analysis.ClientCpu;
import dev.tokenmeter.core.loadgen.StageRunner;
import dev.tokenmeter.core.request.Outcome;
import dev.tokenmeter.core.request.RequestTimeline;
import dev.tokenmeter.core.time.Ticker;
import dev.tokenmeter.testkit.SimFixture;
import dev.tokenmeter.testkit.StageKit;
import dev.tokenmeter.testkit.StageRun;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * {@code bench --event-loops N}: a stage whose connections are spread over several event loops
 * ({@link SpreadEndpoint}) ends every request exactly once, in order, on the engine's loop, keeps
 * one keep-alive connection per user, and ends the requests of every loop on a timeout or an
 * interrupt as one loop does.
 */
@Timeout(60)
class EventLoopsIT {

  @Test
  void closedLoopOverThreeLoopsKeepsEachUsersConnectionAndLoop() {
    StageRun run;
    long serverConnections;
    try (SimFixture sim = SimFixture.start(SimFixture.config(10, 5))) {
      run = StageKit.run(StageKit.stage(sim).closed(6).requests(60).maxTokens(5).eventLoops(3));
      serverConnections = sim.server().stats().connectionsOpened();
    }
    List<StageRun.Finished> all = run.byId();
    assertThat(all).hasSize(60);
    for (StageRun.Finished f : all) {
      RequestTimeline t = f.timeline();
      assertThat(t.outcome()).as("request %d", t.id()).isEqualTo(new Outcome.Completed("length"));
      assertThat(f.metrics().outputTokens()).isEqualTo(5);
      assertThat(t.chunkCount()).isEqualTo(5);
      for (int i = 1; i < t.chunkCount(); i++) {
        assertThat(t.chunkNanos(i)).isGreaterThanOrEqualTo(t.chunkNanos(i - 1));
      }
      assertThat(t.chunkNanos(0)).isGreaterThan(t.sentNanos());
    }
    // The 6 users were spread 2 to a loop and each user's next request went back to the loop
    // whose connection its last one freed: 6 connections for 60 requests, 20 requests a loop.
    assertThat(run.startedPerLoop()).containsExactly(20L, 20L, 20L);
    assertThat(serverConnections).isEqualTo(6);
    assertThat(run.connectionsOpened()).isEqualTo(6);
  }

  @Test
  void everyLoopsLagIsProbed() {
    long[] probes = new long[2];
    int[] loops = {1, 3};
    try (SimFixture sim = SimFixture.start(SimFixture.config(10, 5))) {
      for (int i = 0; i < 2; i++) {
        StageRun run = StageKit.run(StageKit.stage(sim).closed(3).durationMillis(1_000).maxTokens(5).eventLoops(loops[i]));
        probes[i] = run.result().clientHealth().loopLagMillis().count();
      }
    }
    // 100 probes a second on each loop: about 100 with one loop, 300 with three.
    assertThat(probes[0]).isBetween(50L, 150L);
    assertThat(probes[1]).isGreaterThan(2 * probes[0]);
  }

  @Test
  void timeoutsEndTheRequestsOfEveryLoopOnce() {
    StageRun run;
    try (SimFixture sim = SimFixture.start(SimFixture.config(10, 200))) {
      // 5 tokens of 200 ms each: every request passes its 150 ms total budget mid-stream.
      run =
          StageKit.run(
              StageKit.stage(sim).closed(6).requests(12).maxTokens(5).timeoutsMillis(1_000, 1_000, 150).eventLoops(3));
    }
    List<StageRun.Finished> all = run.byId();
    assertThat(all).extracting(f -> f.timeline().id()).doesNotHaveDuplicates();
    assertThat(run.measured()).hasSize(12);
    assertThat(all).allSatisfy(f -> assertThat(f.timeline().outcome()).isInstanceOf(Outcome.TimedOut.class));
    assertThat(run.startedPerLoop()).allSatisfy(n -> assertThat(n).isPositive());
  }

  @Test
  void anInterruptEndsTheRequestsOfEveryLoopAndNothingArrivesAfter() throws Exception {
    Ticker ticker = Ticker.system();
    ConcurrentLinkedQueue<RequestTimeline> ended = new ConcurrentLinkedQueue<>();
    try (SimFixture sim = SimFixture.start(SimFixture.config(10, 20));
        SpreadEndpoint endpoint = SpreadEndpoint.open(StageKit.stage(sim).endpointConfig(), ticker, 3)) {
      StageKit.Spec spec = StageKit.stage(sim).closed(9).requests(1_000).maxTokens(200);
      StageRunner runner =
          new StageRunner(endpoint, spec.plan(), spec.source(), spec.timeouts(), ticker,
              (t, m) -> ended.add(t), /* counter= */ null);
      CompletableFuture<Long> done = runner.start();
      Thread.sleep(300); // every user mid-stream: 200 tokens take 4 s
      runner.interrupt("test");
      long end = done.get(5, TimeUnit.SECONDS);
      int atInterrupt = ended.size();
      assertThat(atInterrupt).isEqualTo(9);
      assertThat(ended).allSatisfy(t -> assertThat(t.outcome()).isEqualTo(new Outcome.Cancelled("test")));
      assertThat(endpoint.startedPerLoop()).containsExactly(3L, 3L, 3L);
      // The other loops close their connections after the engine has ended the requests; what they
      // read meanwhile is dropped, and nothing more reaches the sink or the recorder.
      Thread.sleep(200);
      assertThat(ended).hasSize(atInterrupt);
      // The tool's own cancellations are neither completed nor failed (docs/METRICS.md, "Cancelled").
      var counts = runner.recorder().finish(end, ClientCpu.UNKNOWN).requests();
      assertThat(counts.failed()).isZero();
      assertThat(counts.completed()).isZero();
    }
  }

  @Test
  void theHandOverToTheEnginesLoopIsBoundedAndLosesNothing() throws Exception {
    // A zero-delay server outruns the engine's loop; with at most 8 callbacks waiting for it, the
    // other loops wait instead of queueing, and every token still arrives, in order.
    Ticker ticker = Ticker.system();
    ConcurrentLinkedQueue<RequestTimeline> ended = new ConcurrentLinkedQueue<>();
    try (SimFixture sim = SimFixture.start(SimFixture.config(0, 0));
        SpreadEndpoint endpoint = SpreadEndpoint.open(StageKit.stage(sim).endpointConfig(), ticker, 3, 8)) {
      StageKit.Spec spec = StageKit.stage(sim).closed(6).requests(60).maxTokens(300);
      StageRunner runner =
          new StageRunner(endpoint, spec.plan(), spec.source(), spec.timeouts(), ticker,
              (t, m) -> ended.add(t), /* counter= */ null);
      runner.start().get(30, TimeUnit.SECONDS);
      assertThat(ended).hasSize(60);
      assertThat(ended).allSatisfy(t -> {
        assertThat(t.outcome()).isEqualTo(new Outcome.Completed("length"));
        assertThat(t.chunkCount()).isPositive();
        for (int i = 1; i < t.chunkCount(); i++) {
          assertThat(t.chunkNanos(i)).isGreaterThanOrEqualTo(t.chunkNanos(i - 1));
        }
      });
      assertThat(endpoint.handOverPeak()).isBetween(1, 8);
      assertThat(endpoint.startedPerLoop()).doesNotContain(0L);
    }
  }
}

package dev.tokenmeter.it;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tokenmeter.core.analysis.Metric;
import dev.tokenmeter.core.metrics.RequestMetrics;
import dev.tokenmeter.testkit.SimFixture;
import dev.tokenmeter.testkit.StageKit;
import dev.tokenmeter.testkit.StageRun;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** HTTP/1.1 keep-alive: a closed loop of c users holds exactly c connections. */
@Timeout(30)
class KeepAliveIT {

  @Test
  void fourUsersOverTwentyRequestsOpenFourConnections() {
    StageRun run;
    long serverConnections;
    long serverRequests;
    try (SimFixture sim = SimFixture.start(SimFixture.config(10, 5))) {
      // 5 tokens: 10 + 4 * 5 = 30 ms a request, 5 rounds of 4.
      run = StageKit.run(StageKit.stage(sim).closed(4).requests(20).maxTokens(5));
      serverConnections = sim.server().stats().connectionsOpened();
      serverRequests = sim.server().stats().requests();
    }
    List<StageRun.Finished> all = run.byId();
    assertThat(all).hasSize(20);
    assertThat(all).allSatisfy(f -> assertThat(f.metrics().succeeded()).isTrue());
    assertThat(serverRequests).isEqualTo(20);
    // Each user opens one connection for its first request and keeps it for its next four.
    assertThat(serverConnections).isEqualTo(4);
    assertThat(run.connectionsOpened()).isEqualTo(4);
    // Connect time exists exactly for the requests that opened one: the first round, ids 0-3.
    List<Long> withConnect =
        all.stream()
            .filter(f -> f.metrics().connectNanos() != RequestMetrics.NONE)
            .map(f -> f.timeline().id())
            .toList();
    assertThat(withConnect).containsExactly(0L, 1L, 2L, 3L);
    assertThat(all.stream().filter(f -> f.timeline().connectedNanos() >= 0)).hasSize(4);
    assertThat(run.result().metric(Metric.CONNECT).count()).isEqualTo(4);
  }
}

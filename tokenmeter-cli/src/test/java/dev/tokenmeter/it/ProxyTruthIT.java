package dev.tokenmeter.it;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tokenmeter.core.metrics.RequestMetrics;
import dev.tokenmeter.ledger.MeteredRequest;
import dev.tokenmeter.proxy.ProxyFixture;
import dev.tokenmeter.simulator.EmissionRecord;
import dev.tokenmeter.testkit.SimFixture;
import dev.tokenmeter.testkit.StageKit;
import dev.tokenmeter.testkit.StageRun;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The proxy measures what bench measures: bench runs through the proxy against the simulator, and
 * for every request the proxy's record and bench's own metrics agree on tokens, their source,
 * chunks and outcome, and on times as far as the proxy's place allows (it sends later and sees the
 * first token sooner, so its TTFT is a little shorter), checked against the simulator's record of
 * when it wrote each token.
 */
@Timeout(60)
class ProxyTruthIT {
  private static final long MS = 1_000_000L;
  /** For the order of two stamps taken on different threads of a shared 2-core machine. */
  private static final long SLACK = 5 * MS;

  @Test
  void benchThroughTheProxyAndTheProxysRecordsAgree() {
    StageRun run;
    List<StageRun.Joined> joined;
    List<MeteredRequest> records;
    try (SimFixture sim = SimFixture.start(SimFixture.config(20, 5));
        ProxyFixture proxy = ProxyFixture.start(sim.baseUrl())) {
      StageKit.warmUpOnce();
      StageKit.run(StageKit.stage(proxy.baseUrl()).closed(2).requests(4).maxTokens(2)); // warm the JIT
      proxy.records.clear();
      sim.awaitAllRecords(3_000);
      run = StageKit.run(StageKit.stage(proxy.baseUrl()).closed(2).requests(10).maxTokens(8));
      sim.awaitAllRecords(3_000);
      joined = run.join(sim).stream().filter(j -> j.truth() != null && j.truth().tokenCount() == 8).toList();
      records = proxy.awaitRecords(run.requests().size());
    }
    Map<String, MeteredRequest> byId =
        records.stream().collect(Collectors.toMap(MeteredRequest::requestId, Function.identity()));
    assertThat(joined).hasSize(10);
    for (StageRun.Joined j : joined) {
      MeteredRequest m = byId.get(j.request().requestIdHeader());
      RequestMetrics b = j.metrics();
      EmissionRecord truth = j.truth();
      String why = j.describe() + "\n" + m;
      assertThat(m).as(why).isNotNull();
      assertThat(m.errorClass()).as(why).isEqualTo(b.errorClass());
      assertThat(m.outputTokens()).as(why).isEqualTo(b.outputTokens()).isEqualTo(8);
      assertThat(m.outputTokensSource()).as(why).isEqualTo(b.outputTokenSource());
      assertThat(m.chunks()).as(why).isEqualTo(b.chunkCount());
      assertThat(m.inputTokens()).as(why).isEqualTo(b.inputTokens());
      // The proxy sends after bench and reads before it, on the same clock: its TTFT is shorter by
      // its own queue time and two loopback hops (5 ms of slack: "sent" is stamped when a write returns,
      // and on a busy machine a thread can be descheduled right after the write).
      assertThat(m.ttftNanos()).as(why).isLessThanOrEqualTo(b.ttftNanos() + SLACK);
      assertThat(b.ttftNanos() - m.ttftNanos() - m.proxyQueueNanos()).as(why).isLessThan(50 * MS);
      assertThat(m.e2eNanos()).as(why).isLessThanOrEqualTo(b.e2eNanos() + SLACK);
      if (Double.isNaN(m.tpotNanos()) || Double.isNaN(b.tpotNanos())) {
        // all tokens in one read: TPOT is undefined (docs/METRICS.md), for both or neither
        assertThat(Double.isNaN(m.tpotNanos())).as(why).isEqualTo(Double.isNaN(b.tpotNanos()));
      } else {
        assertThat(Math.abs(m.tpotNanos() - b.tpotNanos())).as(why).isLessThan(5.0 * MS);
      }
      // Against the server's own times: the first token was written 20 ms after its arrival (the
      // same slack: the server may read the request before the proxy's write returns).
      long serverTtft = truth.actualNanos()[0] - truth.arrivalNanos();
      assertThat(m.ttftNanos()).as(why).isGreaterThanOrEqualTo(serverTtft - SLACK);
      long[] gaps = new long[truth.tokenCount() - 1];
      for (int i = 1; i < truth.tokenCount(); i++) {
        gaps[i - 1] = truth.actualNanos()[i] - truth.actualNanos()[i - 1];
      }
      Arrays.sort(gaps);
      assertThat(Math.abs(m.itlP50Nanos() - gaps[gaps.length / 2])).as(why).isLessThan(5 * MS);
    }
  }
}

package dev.tokenmeter.it;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tokenmeter.simulator.EmissionRecord;
import dev.tokenmeter.testkit.SimFixture;
import dev.tokenmeter.testkit.StageKit;
import dev.tokenmeter.testkit.StageRun;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A role-only first chunk sent with the headers (OpenAI's behaviour) is not a token: TTFT waits for
 * the first chunk carrying text.
 */
@Timeout(30)
class RoleChunkIT {
  private static final long MS = 1_000_000L;

  @Test
  void roleChunkWithTheHeadersDoesNotStartTtft() {
    StageRun run;
    List<StageRun.Joined> joined;
    try (SimFixture sim = SimFixture.start(SimFixture.config(100, 10).roleChunkWithHeaders(true))) {
      run = StageKit.run(StageKit.stage(sim).closed(1).requests(2).maxTokens(3));
      joined = run.join(sim);
    }
    assertThat(joined).hasSize(2);
    for (StageRun.Joined j : joined) {
      EmissionRecord truth = j.truth();
      // The role chunk left with the headers, right after arrival; token 0 was due 100 ms after
      // arrival and was not written earlier.
      assertThat(truth.headersNanos()).isGreaterThanOrEqualTo(truth.arrivalNanos());
      assertThat(truth.actualNanos()[0] - truth.arrivalNanos()).isGreaterThanOrEqualTo(100 * MS);
      // The headers (and the role chunk with them) were read before the server even wrote token 0.
      // Not "90 ms before the first token": run alone in a cold JVM, the client's first read of a
      // response can come 40 ms after the server's write (class loading on the loop), though the
      // stamp is still the read's.
      assertThat(j.timeline().headersNanos()).as(j.describe()).isLessThan(truth.actualNanos()[0]);
      // The role-only chunk did not count: the first token is stamped at or after the server's
      // write of token 0, 100 ms after the headers (counting the role chunk would stamp it at the
      // headers' read, ~100 ms before that write).
      assertThat(j.timeline().firstTokenNanos())
          .as(j.describe())
          .isGreaterThanOrEqualTo(truth.actualNanos()[0]);
      // So TTFT >= 100 ms, with one allowance: `sent` is stamped by the write's completion
      // callback, which may run after the server has already read the request and started its
      // 100 ms (seen 0.4 and 6.4 ms late on this busy 2-core box, the loop thread preempted).
      long sentLateNanos = Math.max(0, j.timeline().sentNanos() - truth.arrivalNanos());
      assertThat(j.metrics().ttftNanos() + sentLateNanos)
          .as(j.describe())
          .isGreaterThanOrEqualTo(100 * MS);
      assertThat(j.metrics().ttftNanos()).as(j.describe()).isGreaterThan(50 * MS);
      assertThat(j.timeline().chunkCount()).isEqualTo(3);
      assertThat(j.metrics().outputTokens()).isEqualTo(3);
    }
  }
}

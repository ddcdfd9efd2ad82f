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
 * A role-only first chunk sent with the headers (OpenAI's behaviour) is not a token: TTFT waits
 * for the first chunk carrying text.
 */
@Timeout(30)
class RoleChunkIT {
  private static final long MS = 1_000_000L;

  @Test
  void roleChunkWithTheHeadersDoesNotStartTtft() {
    StageRun run;
    List<StageRun.Joined> joined;
    try (SimFixture sim =
        SimFixture.start(SimFixture.config(100, 10).roleChunkWithHeaders(true))) {
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
      assertThat(j.timeline().headersNanos()).isLessThan(j.timeline().firstTokenNanos() - 90 * MS);
      // TTFT >= the server's 100 ms: the role-only chunk, which arrived ~100 ms earlier, did not
      // count; and the first token is the server's token 0.
      assertThat(j.metrics().ttftNanos()).isGreaterThanOrEqualTo(100 * MS);
      assertThat(j.timeline().firstTokenNanos()).isGreaterThanOrEqualTo(truth.actualNanos()[0]);
      assertThat(j.timeline().chunkCount()).isEqualTo(3);
      assertThat(j.metrics().outputTokens()).isEqualTo(3);
    }
  }
}

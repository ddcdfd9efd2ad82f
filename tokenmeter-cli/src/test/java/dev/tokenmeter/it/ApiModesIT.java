package dev.tokenmeter.it;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tokenmeter.client.Api;
import dev.tokenmeter.core.metrics.RequestMetrics;
import dev.tokenmeter.core.request.Outcome;
import dev.tokenmeter.core.request.RequestTimeline;
import dev.tokenmeter.core.request.TokenCountSource;
import dev.tokenmeter.simulator.EmissionRecord;
import dev.tokenmeter.simulator.GenerationRequest;
import dev.tokenmeter.testkit.SimFixture;
import dev.tokenmeter.testkit.StageKit;
import dev.tokenmeter.testkit.StageRun;
import java.util.List;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** Chat and completions, streamed and whole: items parsed, tokens counted, times consistent. */
@Timeout(30)
class ApiModesIT {
  private static final int TOKENS = 5;

  @ParameterizedTest(name = "{0} stream={1}")
  @CsvSource({"COMPLETIONS, true", "COMPLETIONS, false", "CHAT, false"})
  void eachApiAndModeIsParsedAndCounted(Api api, boolean stream) {
    List<StageRun.Joined> joined;
    try (SimFixture sim = SimFixture.start(SimFixture.config(10, 5))) {
      StageRun run =
          StageKit.run(
              StageKit.stage(sim).api(api).stream(stream).closed(1).requests(2).maxTokens(TOKENS));
      joined = run.join(sim);
    }
    assertThat(joined).hasSize(2);
    for (StageRun.Joined j : joined) {
      RequestTimeline t = j.timeline();
      RequestMetrics m = j.metrics();
      EmissionRecord truth = j.truth();
      assertThat(truth.request().api())
          .isEqualTo(
              api == Api.CHAT ? GenerationRequest.Api.CHAT : GenerationRequest.Api.COMPLETIONS);
      assertThat(truth.request().stream()).isEqualTo(stream);
      assertThat(t.outcome()).as(j.describe()).isEqualTo(new Outcome.Completed("length"));
      // Usage counted: the server's completion tokens, and its prompt tokens.
      assertThat(truth.tokenCount()).isEqualTo(TOKENS);
      assertThat(m.outputTokens()).isEqualTo(TOKENS);
      assertThat(m.outputTokenSource()).isEqualTo(TokenCountSource.USAGE);
      assertThat(m.usagePromptTokens()).isEqualTo(truth.request().promptTokens()).isPositive();
      assertThat(t.content().length()).isPositive();
      long[] actual = truth.actualNanos();
      if (stream) {
        // One text item per token, each received after the server wrote it.
        assertThat(t.chunkCount()).isEqualTo(TOKENS);
        for (int i = 0; i < TOKENS; i++) {
          assertThat(t.chunkNanos(i)).isGreaterThanOrEqualTo(actual[i]);
        }
        // Not strictly greater: a descheduled client can receive every chunk in one read.
        assertThat(m.e2eNanos()).isGreaterThanOrEqualTo(m.ttftNanos());
      } else {
        // The whole answer in one body, written when the last token was due: the first token
        // arrives with the last, so TTFT equals E2E exactly and TPOT is undefined (not 0).
        assertThat(t.chunkCount()).isEqualTo(1);
        assertThat(t.firstTokenNanos()).isGreaterThanOrEqualTo(actual[TOKENS - 1]);
        assertThat(m.ttftNanos()).isEqualTo(m.e2eNanos());
        assertThat(m.tpotUndefined()).isTrue();
        assertThat(m.decodeTokensPerSecond()).isNaN();
        assertThat(m.chunkTokens(0)).isEqualTo(TOKENS);
      }
    }
  }
}

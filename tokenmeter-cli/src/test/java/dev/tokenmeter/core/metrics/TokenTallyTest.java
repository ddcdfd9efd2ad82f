package dev.tokenmeter.core.metrics;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import dev.tokenmeter.core.analysis.StageResult;
import dev.tokenmeter.core.request.Outcome;
import dev.tokenmeter.core.request.Phase;
import dev.tokenmeter.core.request.RequestTimeline;
import org.junit.jupiter.api.Test;

/** Usage against the tokenizer, the prompt overhead and words per token, computed by hand. */
class TokenTallyTest {
  private static final long MS = 1_000_000L;
  /** A tokenizer that counts characters: "one two three" is 13 tokens. */
  private static final OutputTokenCounter CHARS = OutputTokenCounter.named("chars", CharSequence::length);

  private static RequestMetrics request(String answer, int usagePrompt, int usageCompletion) {
    Timelines b = Timelines.request(0, Phase.MEASURED, 0, 15).sent(MS).chunk(2 * MS, answer);
    if (usageCompletion >= 0) {
      b.usage(usagePrompt, usageCompletion);
    }
    return RequestMetrics.of(b.completedAtLastChunk(3 * MS), CHARS);
  }

  @Test
  void comparesUsageWithTheTokenizerAndKeepsBoth() {
    TokenTally tally = new TokenTally("chars");
    RequestMetrics agree = request("one two three", 20, 13); // 13 chars: agrees
    RequestMetrics over = request("four five", 22, 10); // 9 chars: diff −1, rel 0.1
    RequestMetrics under = request("six", 18, 6); // 3 chars: diff −3, rel 0.5
    RequestMetrics noUsage = request("seven eight", -1, -1); // tokenizer only: not compared
    for (RequestMetrics m : new RequestMetrics[] {agree, over, under, noUsage}) {
      tally.add(m);
    }
    assertThat(over.usageOutputTokens()).isEqualTo(10);
    assertThat(over.tokenizerOutputTokens()).isEqualTo(9);
    assertThat(over.outputTokens()).isEqualTo(10); // usage wins, the tokenizer's count is kept
    assertThat(noUsage.outputTokens()).isEqualTo(11);

    StageResult.TokenAccounting t = tally.result();
    StageResult.UsageVsTokenizer vs = t.usageVsTokenizer();
    assertThat(vs.tokenizer()).isEqualTo("chars");
    assertThat(vs.compared()).isEqualTo(3);
    assertThat(vs.disagreements()).isEqualTo(2);
    assertThat(vs.meanDiffTokens()).isCloseTo(-4.0 / 3, within(1e-12)); // (0 − 1 − 3) / 3
    assertThat(vs.meanAbsDiffTokens()).isEqualTo(2.0); // (1 + 3) / 2 disagreeing
    assertThat(vs.maxAbsDiffTokens()).isEqualTo(3);
    assertThat(vs.meanRelDiff()).isCloseTo(0.3, within(1e-12)); // (0.1 + 0.5) / 2
    assertThat(vs.maxRelDiff()).isEqualTo(0.5);

    // Prompt overhead: usage.prompt_tokens − 15 = 5, 7, 3 (the request without usage has none).
    StageResult.PromptOverhead p = t.promptOverhead();
    assertThat(p.count()).isEqualTo(3);
    assertThat(p.estimatedCount()).isEqualTo(3); // Timelines' client counts are estimates
    assertThat(p.meanTokens()).isEqualTo(5.0);
    assertThat(p.minTokens()).isEqualTo(3);
    assertThat(p.maxTokens()).isEqualTo(7);
    assertThat(p.meanClientTokens()).isEqualTo(15.0);
    assertThat(p.relative()).isEqualTo(5.0 / 15);
    assertThat(p.countsDiffer()).as("5 tokens a request: a template's").isFalse();

    // Words 3 + 2 + 1 + 2 = 8 over n = 13 + 10 + 6 + 11 = 40 tokens.
    assertThat(t.outputWords()).isEqualTo(8);
    assertThat(t.wordsOutputTokens()).isEqualTo(40);
    assertThat(t.wordsPerOutputToken()).isEqualTo(0.2);
  }

  @Test
  void failedAndReasoningRequestsStayOutOfWordsPerTokenAndNothingMeansNull() {
    TokenTally tally = new TokenTally(null);
    RequestTimeline failed =
        Timelines.request(0, Phase.MEASURED, 0, 15).sent(MS).chunk(2 * MS, "a b")
            .failed(new Outcome.Cancelled("stop"), 3 * MS);
    RequestTimeline thinking =
        Timelines.request(1, Phase.MEASURED, 0, 15).sent(MS).reasoning(2 * MS, "hmm")
            .chunk(3 * MS, "yes").completedAtLastChunk(4 * MS);
    tally.add(RequestMetrics.of(failed, null));
    RequestMetrics m = RequestMetrics.of(thinking, CHARS);
    tally.add(m);
    assertThat(m.tokenizerOutputTokens()).isEqualTo(-1); // reasoning text is not kept: no count
    StageResult.TokenAccounting t = tally.result();
    assertThat(t.outputWords()).isZero();
    assertThat(t.wordsPerOutputToken()).isNaN();
    assertThat(t.usageVsTokenizer().compared()).isZero();
    assertThat(t.usageVsTokenizer().meanDiffTokens()).isNaN();
    assertThat(t.promptOverhead().meanTokens()).isNaN();
    assertThat(t.promptOverhead().meanClientTokens()).isNaN();
    assertThat(t.promptOverhead().countsDiffer()).isFalse();
  }

  @Test
  void countsDifferBeyondATemplateAndAFewPercent() {
    // Allowed: up to 64 + 5% more (a template), up to 5% fewer.
    assertThat(StageResult.PromptOverhead.differ(927, 2772)).as("3,699 vs 2,772").isTrue();
    assertThat(StageResult.PromptOverhead.differ(64 + 138, 2772)).isFalse();
    assertThat(StageResult.PromptOverhead.differ(64 + 139, 2772)).isTrue();
    assertThat(StageResult.PromptOverhead.differ(7, 256)).as("the simulator's chat framing").isFalse();
    assertThat(StageResult.PromptOverhead.differ(31, 20)).as("Llama 3.1's template on a short prompt").isFalse();
    assertThat(StageResult.PromptOverhead.differ(-50, 1000)).isFalse();
    assertThat(StageResult.PromptOverhead.differ(-51, 1000)).as("a template never removes tokens").isTrue();
    assertThat(StageResult.PromptOverhead.differ(Double.NaN, 1000)).isFalse();
    assertThat(StageResult.PromptOverhead.differ(100, 0)).isFalse();
  }
}

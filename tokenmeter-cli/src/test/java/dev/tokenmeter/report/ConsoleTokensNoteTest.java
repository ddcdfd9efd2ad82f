package dev.tokenmeter.report;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tokenmeter.core.analysis.ClientCpu;
import dev.tokenmeter.core.analysis.StageResult;
import dev.tokenmeter.core.load.LoadModel;
import dev.tokenmeter.core.load.StagePlan;
import dev.tokenmeter.core.load.StopCondition;
import dev.tokenmeter.core.metrics.OutputTokenCounter;
import dev.tokenmeter.core.metrics.RequestMetrics;
import dev.tokenmeter.core.metrics.StageRecorder;
import dev.tokenmeter.core.request.Outcome;
import dev.tokenmeter.core.request.Phase;
import dev.tokenmeter.core.request.Prompt;
import dev.tokenmeter.core.request.RequestSpec;
import dev.tokenmeter.core.request.RequestTimeline;
import dev.tokenmeter.core.request.StreamItem;
import dev.tokenmeter.core.request.TextKind;
import java.util.OptionalInt;
import org.junit.jupiter.api.Test;

/**
 * The terminal says when the server's usage and the client's tokenizer disagree (output and prompt
 * counts), and prints no NaN
 * for a stage stopped before its window opened.
 */
class ConsoleTokensNoteTest {
  private static final long MS = 1_000_000L;

  private static StageResult stage(int... usage) {
    StagePlan plan =
        new StagePlan(0, new LoadModel.Closed(1, 0), new StopCondition.Requests(usage.length), 0, 0, 1);
    StageRecorder r = new StageRecorder(plan, 0, "o200k_base");
    r.windowStarted(0);
    OutputTokenCounter ten = OutputTokenCounter.named("o200k_base", text -> 10);
    long at = 0;
    for (int i = 0; i < usage.length; i++) {
      RequestSpec spec = new RequestSpec(i, new Prompt.Text("hi"), 1, true, OptionalInt.empty());
      RequestTimeline t = new RequestTimeline(spec, 0, Phase.MEASURED, at);
      t.sent(at + MS);
      r.requestSent(t, at + MS);
      t.item(new StreamItem.Text("some words here", TextKind.CONTENT), at + 2 * MS);
      t.item(new StreamItem.Usage(5, usage[i], -1), at + 2 * MS);
      t.end(new Outcome.Completed("stop"), at + 3 * MS);
      r.requestEnded(t, RequestMetrics.of(t, ten));
      at += 3 * MS;
    }
    r.windowEnded(at);
    return r.finish(at, ClientCpu.UNKNOWN);
  }

  @Test
  void disagreementsGetOneLine() {
    // The tokenizer says 10 each; usage 10, 11 and 14: 2 of 3 disagree by 1 and 4.
    StageResult r = stage(10, 11, 14);
    assertThat(ConsoleReport.stage(r, 1))
        .contains("  note: usage and o200k_base disagree on 2 of 3 requests, mean |diff| 2.5 tokens (max 4)");
    assertThat(r.tokens().wordsPerOutputToken()).isEqualTo(9.0 / 35); // 3 words × 3 / (10+11+14)
  }

  /** One measured request each: the client counted {@code client} prompt tokens, the server {@code usage}. */
  private static StageResult prompts(int client, boolean exact, int usage, String tokenizer) {
    StagePlan plan = new StagePlan(0, new LoadModel.Closed(1, 0), new StopCondition.Requests(2), 0, 0, 1);
    StageRecorder r = new StageRecorder(plan, 0, tokenizer);
    r.windowStarted(0);
    for (int i = 0; i < 2; i++) {
      RequestSpec spec = new RequestSpec(i, new Prompt.Text("hi"), client, exact, OptionalInt.empty());
      RequestTimeline t = new RequestTimeline(spec, 0, Phase.MEASURED, i * 3 * MS);
      t.sent(i * 3 * MS + MS);
      r.requestSent(t, i * 3 * MS + MS);
      t.item(new StreamItem.Text("a b", TextKind.CONTENT), i * 3 * MS + 2 * MS);
      t.item(new StreamItem.Usage(usage, 2, -1), i * 3 * MS + 2 * MS);
      t.end(new Outcome.Completed("stop"), i * 3 * MS + 3 * MS);
      r.requestEnded(t, RequestMetrics.of(t, null));
    }
    r.windowEnded(6 * MS);
    return r.finish(6 * MS, ClientCpu.UNKNOWN);
  }

  @Test
  void aServerThatCountsPromptsWithAnotherTokenizerGetsOneLineWithTheRatio() {
    assertThat(ConsoleReport.stage(prompts(2772, true, 3699, "o200k_base"), 1))
        .contains("  note: the server counts 33% more prompt tokens than o200k_base (mean 3699 vs 2772 a request;"
            + " a chat template adds tens): set --tokenizer to the model's own (docs/TOKENIZERS.md)");
    assertThat(ConsoleReport.stage(prompts(1000, true, 900, "o200k_base"), 1))
        .contains("the server counts 10% fewer prompt tokens than o200k_base (mean 900 vs 1000");
    assertThat(ConsoleReport.stage(prompts(256, false, 350, null), 1))
        .contains("the server counts 37% more prompt tokens than bench's estimate (mean 350 vs 256 a request;"
            + " a chat template adds tens): pass --tokenizer with the model's own for exact counts");
  }

  @Test
  void aChatTemplatesFewTokensPrintNothing() {
    StageResult r = prompts(256, true, 263, "o200k_base");
    assertThat(r.tokens().promptOverhead().meanTokens()).isEqualTo(7.0);
    assertThat(ConsoleReport.stage(r, 1)).doesNotContain("prompt tokens than");
  }

  @Test
  void agreementPrintsNothing() {
    assertThat(ConsoleReport.stage(stage(10, 10), 1)).doesNotContain("disagree on");
  }

  @Test
  void aStageStoppedInItsWarmUpPrintsItsWarmUpAndNoNaN() {
    StagePlan plan = new StagePlan(0, new LoadModel.Closed(2, 0), new StopCondition.Duration(60_000 * MS), 10_000 * MS,
        0, 1);
    StageRecorder r = new StageRecorder(plan, 0, "o200k_base");
    for (int i = 0; i < 3; i++) {
      RequestTimeline t = new RequestTimeline(new RequestSpec(i, new Prompt.Text("hi"), 1, true, OptionalInt.empty()),
          0, Phase.WARMUP, i * MS);
      t.sent(i * MS);
      r.requestSent(t, i * MS);
      t.end(i < 2 ? new Outcome.HttpError(404, "no") : new Outcome.Cancelled("interrupted"), (i + 1) * MS);
      r.requestEnded(t, RequestMetrics.of(t, null));
    }
    String table = ConsoleReport.stage(r.finish(5 * MS, ClientCpu.UNKNOWN), 1);
    assertThat(table).doesNotContain("NaN")
        .contains("achieved concurrency -")
        .contains("  warm-up: 0 completed, 2 failed (the window never opened)") // the cancelled one is neither
        .contains("throughput: output - tok/s   input - tok/s   - req/s")
        .contains("  client: not watched (the window never opened)");
  }
}

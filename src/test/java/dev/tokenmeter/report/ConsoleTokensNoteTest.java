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
 * The terminal says when the server's usage and the client's tokenizer disagree, and prints no NaN
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

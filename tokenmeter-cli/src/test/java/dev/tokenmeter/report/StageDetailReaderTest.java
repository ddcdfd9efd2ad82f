package dev.tokenmeter.report;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tokenmeter.core.analysis.StageResult;
import dev.tokenmeter.core.analysis.TimeSeries;
import org.junit.jupiter.api.Test;

/** summary.json's stage details read back as written: load, window, series, client health, simulation. */
class StageDetailReaderTest {

  @Test
  void detailsRoundTrip() throws Exception {
    RunSummary run = SampleRun.simulated();
    SavedSummary back = SummaryJsonReader.read(SummaryJsonWriter.toJson(run));
    assertThat(back.simulated()).isTrue();
    assertThat(back.simulation()).isEqualTo(
        new SavedSummary.Simulation("simulated in virtual time", "llama-3.1-8b", "h100-sxm", 1, 17.25,
            "Held out by source, the model's median error is 8.1% for TPOT/ITL (p90 37.9%)"
                + " (docs/SIMULATOR.md, Accuracy). This kind of model (fine-grained mixture of experts"
                + " or latent attention) no fit has seen: on published setups of such models the"
                + " predictions were off by a median +114.6% for output throughput (docs/ACCURACY.md)."));
    assertThat(back.partialDetail()).isEqualTo("Ctrl-C during stage 1");

    StageDetail closed = back.stages().get(0).detail();
    StageResult r = run.stages().get(0);
    assertThat(closed.closed()).isTrue();
    assertThat(closed.concurrency()).isEqualTo(4);
    assertThat(closed.ratePerSecond()).isNaN();
    assertThat(closed.windowStartSeconds()).isEqualTo(r.window().startOffsetNanos() / 1e9);
    assertThat(closed.windowEndSeconds()).isEqualTo(r.window().endOffsetNanos() / 1e9);
    assertThat(closed.steadyStateReason()).isEqualTo(r.steadyState().reason());
    assertThat(closed.wordsPerOutputToken()).isEqualTo(r.tokens().wordsPerOutputToken());
    assertThat(closed.health().loopLagMillis()).isEqualTo(r.clientHealth().loopLagMillis());
    assertThat(closed.health().bottleneck()).isEqualTo(r.clientHealth().bottleneck());
    assertThat(closed.health().availableProcessors()).isEqualTo(r.clientHealth().availableProcessors());
    TimeSeries ts = r.timeSeries();
    StageDetail.Series series = closed.series();
    assertThat(series.intervalSeconds()).isEqualTo(1.0);
    assertThat(series.outputTokens()).hasSize(ts.seconds());
    for (int s = 0; s < ts.seconds(); s++) {
      assertThat(series.outputTokens()[s]).isEqualTo(ts.outputTokens(s));
      assertThat(series.failed()[s]).isEqualTo(ts.failed(s));
      assertThat(series.completed()[s]).isEqualTo(ts.completed(s));
    }
    assertThat(series.phases()).extracting(StageDetail.PhaseSpan::phase)
        .containsExactly("warmup", "measured", "cooldown");

    StageDetail open = back.stages().get(1).detail();
    assertThat(open.closed()).isFalse();
    assertThat(open.ratePerSecond()).isEqualTo(3.5);
    assertThat(open.windowComplete()).isFalse();
  }

  @Test
  void missingSectionsReadAsEmptyAndMeasuredRunsHaveNoSimulation() throws Exception {
    String json = SummaryJsonWriter.toJson(SampleRun.summary())
        .replaceFirst("\"client_health\"", "\"client_health_gone\"")
        .replaceFirst("\"time_series\"", "\"time_series_gone\"");
    SavedSummary back = SummaryJsonReader.read(json);
    assertThat(back.simulated()).isFalse();
    assertThat(back.stages().get(0).detail().health()).isNull();
    assertThat(back.stages().get(0).detail().series()).isNull();
    assertThat(back.stages().get(1).detail().series()).isNotNull();
    String noWords = SummaryJsonWriter.toJson(SampleRun.summary())
        .replaceFirst("\"words_per_output_token\"", "\"words_per_output_token_gone\"");
    assertThat(SummaryJsonReader.read(noWords).stages().get(0).detail().wordsPerOutputToken()).isNaN();
  }
}

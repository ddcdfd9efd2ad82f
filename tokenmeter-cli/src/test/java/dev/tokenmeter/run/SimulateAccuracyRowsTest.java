package dev.tokenmeter.run;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tokenmeter.report.RunSummary.AccuracyFigure;
import dev.tokenmeter.simulator.engine.EngineConfig;
import dev.tokenmeter.simulator.engine.Presets;
import java.util.List;
import org.junit.jupiter.api.Test;

/** summary.json's settings.simulation.engine.accuracy rows, by the kind of model simulated. */
class SimulateAccuracyRowsTest {
  @Test
  void aDenseModelHasTheHeldOutRowsOnly() {
    List<AccuracyFigure> rows = SimulateRun.accuracy(
        EngineConfig.of(Presets.model("llama-3.1-8b"), Presets.gpu("h100-sxm")));
    assertThat(rows).extracting(AccuracyFigure::scope)
        .containsOnly("all", "silybench", "rtx4090-vllm", "gpustack-vllm");
    assertThat(rows).allMatch(r -> r.medianSignedErrorPercent() == null);
  }

  @Test
  void aModelNoFitHasSeenAddsItsOwnSetupsBySourceProfile() {
    List<AccuracyFigure> rows = SimulateRun.accuracy(
        EngineConfig.of(Presets.model("gpt-oss-120b"), Presets.gpu("h100-sxm")));
    List<AccuracyFigure> unseen = rows.stream().filter(r -> r.scope().startsWith("unseen")).toList();
    assertThat(unseen).extracting(AccuracyFigure::scope).containsOnly("unseen:gpt-oss-120b/vllm");
    AccuracyFigure throughput = unseen.stream()
        .filter(r -> r.quantity().equals("output_throughput")).findFirst().orElseThrow();
    assertThat(throughput.figures()).isEqualTo(5);
    assertThat(throughput.medianSignedErrorPercent()).isEqualTo(131.4);
  }

  @Test
  void aModelOfThatKindWithoutSetupsGetsThePooledRows() {
    List<AccuracyFigure> rows = SimulateRun.accuracy(
        EngineConfig.of(Presets.model("qwen3-30b-a3b"), Presets.gpu("h100-sxm")));
    assertThat(rows.stream().filter(r -> r.scope().equals("unseen"))).hasSize(4)
        .allMatch(r -> r.medianSignedErrorPercent() != null);
  }
}

package dev.tokenmeter.run;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tokenmeter.simulator.engine.EngineConfig;
import dev.tokenmeter.simulator.engine.GpuSpec;
import dev.tokenmeter.simulator.engine.Presets;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** simulate's energy lines: a GPU without power data says energy is unknown, once. */
class SimulatedEnergyTest {

  @Test
  void aGpuWithoutPowerDataHasUnknownEnergy() {
    GpuSpec mine = new GpuSpec("my-accelerator", "My accelerator", 80L << 30, 3e12, 1e15, 2e15, 2e15, 4.5e11,
        "NVLink 4 (900 GB/s)", "test");
    EngineConfig c = EngineConfig.of(Presets.model("llama-3.1-8b"), mine);
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    PrintStream out = new PrintStream(bytes, true, StandardCharsets.UTF_8);
    List<dev.tokenmeter.scrape.GpuStage> stages = new ArrayList<>();
    stages.add(SimulatedEnergy.stage(null, null, Double.NaN));
    SimulatedEnergy.print(out, stages, c, "USD");
    stages.add(null);
    SimulatedEnergy.print(out, stages, c, "USD");
    assertThat(bytes.toString(StandardCharsets.UTF_8).lines().toList()).containsExactly(
        "Energy: unknown for GPU my-accelerator (no power data for it; docs/ENERGY.md, \"Power and energy\")");
  }
}

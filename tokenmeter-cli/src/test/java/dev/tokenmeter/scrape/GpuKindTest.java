package dev.tokenmeter.scrape;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

/**
 * The DCGM and AMD exporter series, from samples written from their documented formats
 * (src/test/resources/gpu), and nvidia-smi's csv: per GPU, in tokenmeter's units.
 */
class GpuKindTest {

  static String resource(String name) throws IOException {
    try (InputStream in = GpuKindTest.class.getResourceAsStream("/gpu/" + name)) {
      return new String(in.readAllBytes(), StandardCharsets.UTF_8);
    }
  }

  @Test
  void dcgmPerGpuInWattsPercentMibAndJoules() throws IOException {
    Exposition e = PromText.parse(resource("dcgm-exporter.txt"));
    assertThat(GpuKind.detect(e)).isEqualTo(GpuKind.DCGM);
    GpuReading r = GpuKind.DCGM.read(e, 7, "");
    assertThat(r.atNanos()).isEqualTo(7);
    assertThat(r.gpus()).containsOnlyKeys("0 GPU-5fd4c5a0-6f4e-1c9e-8f0b-1b2c3d4e5f60",
        "1 GPU-7a604372-6642-db36-be4a-81e9e4d2de59");
    GpuReading.Gpu g0 = r.gpus().get("0 GPU-5fd4c5a0-6f4e-1c9e-8f0b-1b2c3d4e5f60");
    assertThat(g0.powerWatts()).isEqualTo(512.347);
    assertThat(g0.utilPercent()).isEqualTo(97);
    assertThat(g0.memoryUsedMib()).isEqualTo(73421);
    assertThat(g0.smClockMhz()).isEqualTo(1980);
    assertThat(g0.smActive()).isEqualTo(0.812345);
    assertThat(g0.dramActive()).isEqualTo(0.654321);
    assertThat(g0.energyJoules()).as("mJ to J").isCloseTo(9_823_451.234, within(1e-6));
  }

  @Test
  void amdPrefersPackagePowerAndReadsUmcActivityAsAShareAndMicrojoulesAsJoules() throws IOException {
    Exposition e = PromText.parse(resource("amd-device-metrics-exporter.txt"));
    assertThat(GpuKind.detect(e)).isEqualTo(GpuKind.AMD);
    GpuReading r = GpuKind.AMD.read(e, 0, "mi-node-b:5000 ");
    assertThat(r.gpus()).containsOnlyKeys("mi-node-b:5000 0 692251001124", "mi-node-b:5000 1 692251001125");
    GpuReading.Gpu g0 = r.gpus().get("mi-node-b:5000 0 692251001124");
    assertThat(g0.powerWatts()).as("package power before power usage").isEqualTo(612);
    assertThat(g0.utilPercent()).isEqualTo(88);
    assertThat(g0.dramActive()).isCloseTo(0.41, within(1e-12));
    assertThat(g0.memoryUsedMib()).isEqualTo(183265);
    assertThat(g0.smClockMhz()).as("the system clocks' mean, not the memory clock").isEqualTo(2050);
    assertThat(g0.energyJoules()).isCloseTo(1.4e7, within(1e-6));
    assertThat(g0.smActive()).isNaN();
    GpuReading.Gpu g1 = r.gpus().get("mi-node-b:5000 1 692251001125");
    assertThat(g1.powerWatts()).as("power usage where there is no package power").isEqualTo(455);
    assertThat(g1.energyJoules()).isNaN();
  }

  @Test
  void amdNamesWithTheOptionalPrefixReadAlike() {
    Exposition e = PromText.parse("amd_gpu_package_power{gpu_id=\"3\"} 700\namd_gpu_gfx_activity{gpu_id=\"3\"} 12\n");
    assertThat(GpuKind.detect(e)).isEqualTo(GpuKind.AMD);
    GpuReading.Gpu g = GpuKind.AMD.read(e, 0, "").gpus().get("3");
    assertThat(g.powerWatts()).isEqualTo(700);
    assertThat(g.utilPercent()).isEqualTo(12);
  }

  @Test
  void aServersMetricsAreNoGpuExporter() {
    assertThat(GpuKind.detect(PromText.parse("vllm:num_requests_running{engine=\"0\"} 3\n"))).isNull();
    assertThat(GpuKind.detect(PromText.parse("DCGM_FI_DEV_GPU_TEMP{gpu=\"0\"} 40\n")))
        .as("temperature alone has no power").isNull();
  }

  @Test
  void nvidiaSmiCsvReadsNotAvailableAsMissing() throws IOException {
    // Written from nvidia-smi's documented csv format (nvidia-smi --help-query-gpu); not run on a GPU.
    GpuReading r = NvidiaSmi.parse(resource("nvidia-smi.csv"), 5);
    assertThat(r.gpus()).hasSize(2);
    GpuReading.Gpu g0 = r.gpus().get("0 GPU-5fd4c5a0-6f4e-1c9e-8f0b-1b2c3d4e5f60");
    assertThat(g0.powerWatts()).isEqualTo(512.34);
    assertThat(g0.utilPercent()).isEqualTo(97);
    assertThat(g0.memoryUsedMib()).isEqualTo(73421);
    assertThat(g0.smClockMhz()).isEqualTo(1980);
    assertThat(g0.energyJoules()).isNaN();
    GpuReading.Gpu g1 = r.gpus().get("1 GPU-7a604372-6642-db36-be4a-81e9e4d2de59");
    assertThat(g1.powerWatts()).isNaN();
    assertThat(g1.smClockMhz()).isNaN();
  }

  @Test
  void nvidiaSmiAnswerWithOtherFieldsIsNamed() {
    assertThatThrownBy(() -> NvidiaSmi.parse("0, 512.3\n", 0)).hasMessageContaining("line 1")
        .hasMessageContaining("not the 6 asked for");
    assertThatThrownBy(() -> NvidiaSmi.parse("0, GPU-x, lots, 1, 2, 3\n", 0)).hasMessageContaining("not a number: 'lots'");
  }
}

package dev.tokenmeter.report;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tokenmeter.core.analysis.Metric;
import dev.tokenmeter.core.analysis.StageSample;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * What compare reads from a results folder: TTFT and E2E are the headline ones (from the schedule
 * in an open loop's stages), each value with the time its request was scheduled; and a request
 * without a TPOT adds no TPOT value.
 */
class RunFolderHeadlineTest {
  @TempDir Path dir;

  @Test
  void anOpenStageIsComparedFromTheScheduleAndAClosedOneFromTheSend() throws Exception {
    SummaryJsonWriter.write(SampleRun.summary(), dir.resolve("summary.json")); // stage 0 closed, 1 open
    Files.writeString(dir.resolve("requests.jsonl"), String.join("\n",
        "{\"id\":0,\"stage\":0,\"phase\":\"measured\",\"scheduled_at_ms\":1000,\"ok\":true,\"ttft_ms\":50,"
            + "\"ttft_from_scheduled_ms\":450,\"e2e_ms\":90,\"e2e_from_scheduled_ms\":490,\"tpot_ms\":2,\"decode_tps\":500}",
        "{\"id\":1,\"stage\":0,\"phase\":\"measured\",\"scheduled_at_ms\":2500,\"ok\":true,\"ttft_ms\":60,"
            + "\"ttft_from_scheduled_ms\":460,\"e2e_ms\":60,\"e2e_from_scheduled_ms\":460,\"tpot_ms\":null,\"decode_tps\":null}",
        "{\"id\":0,\"stage\":1,\"phase\":\"measured\",\"scheduled_at_ms\":9000,\"ok\":true,\"ttft_ms\":50,"
            + "\"ttft_from_scheduled_ms\":450,\"e2e_ms\":90,\"e2e_from_scheduled_ms\":490,\"tpot_ms\":2,\"decode_tps\":500}",
        "{\"id\":1,\"stage\":1,\"phase\":\"warmup\",\"scheduled_at_ms\":8000,\"ok\":true,\"ttft_ms\":1}") + "\n");
    RunFolder f = RunFolder.read(dir);
    StageSample closed = f.stages().get(0);
    StageSample open = f.stages().get(1);
    assertThat(closed.perRequest().get(Metric.TTFT)).containsExactly(50, 60);
    assertThat(closed.perRequest().get(Metric.E2E)).containsExactly(90, 60);
    assertThat(closed.perRequest().get(Metric.TPOT)).containsExactly(2); // null is no value
    assertThat(closed.atSeconds().get(Metric.TTFT)).containsExactly(0, 1.5);
    assertThat(closed.distributions().get(Metric.TTFT))
        .isEqualTo(f.summary().stage(0).metrics().get("ttft_ms"));
    assertThat(open.perRequest().get(Metric.TTFT)).containsExactly(450);
    assertThat(open.perRequest().get(Metric.E2E)).containsExactly(490);
    assertThat(open.distributions().get(Metric.TTFT))
        .isEqualTo(f.summary().stage(1).metrics().get("ttft_from_scheduled_ms"));
    assertThat(f.comparable()).isEqualTo(f.stages()); // no repeats: one sample per stage
  }
}

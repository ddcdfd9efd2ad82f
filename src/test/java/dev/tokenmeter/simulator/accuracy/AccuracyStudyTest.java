package dev.tokenmeter.simulator.accuracy;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import dev.tokenmeter.simulator.accuracy.AccuracyStudy.Comparison;
import dev.tokenmeter.simulator.accuracy.AccuracyStudy.Group;
import dev.tokenmeter.simulator.accuracy.Predictor.Efficiency;
import dev.tokenmeter.simulator.accuracy.PublishedPoints.Dataset;
import dev.tokenmeter.simulator.accuracy.PublishedPoints.Point;
import dev.tokenmeter.simulator.engine.EngineConfig;
import dev.tokenmeter.simulator.engine.Presets;
import dev.tokenmeter.simulator.engine.Roofline;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Collectors;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The simulator's accuracy against published measurements (docs/SIMULATOR.md, Accuracy). Runs
 * every point with the defaults, writes {@code target/accuracy-table.md}, and requires the block
 * in docs/SIMULATOR.md to be exactly that: the doc cannot drift from the code. To refresh the doc
 * after a model change, copy target/accuracy-table.md over the block.
 */
class AccuracyStudyTest {
  private static final Path DOC = Path.of("docs", "SIMULATOR.md");
  private static final Path GENERATED = Path.of("target", "accuracy-table.md");

  /**
   * The best factors {@link AccuracyCalibrationTest} found on the calibration points (coordinate
   * descent over MFU 0.3–0.8, MBU 0.4–0.95, overhead 0–10 ms, per sequence 0–0.15 ms; objective
   * 3.7% there): the defaults since (docs/SIMULATOR.md, Accuracy).
   */
  static final Efficiency FIT = new Efficiency(0.65, 0.9, 5_000_000L, 80_000L);

  /** The defaults before the fit: roofline-near factors, no per-sequence term. */
  static final Efficiency OLD_DEFAULTS = new Efficiency(0.5, 0.8, 500_000L, 0L);

  /**
   * The study's first fit, without the per-sequence term (grid MFU 0.3–0.8, MBU 0.4–0.9, overhead
   * 0.5–8 ms; objective 7.6%), kept for comparison.
   */
  static final Efficiency FIT_3 = new Efficiency(0.6, 0.8, 8_000_000L, 0L);

  private static Dataset dataset;
  private static List<Comparison> comparisons;
  private static String table;

  @BeforeAll
  static void runStudy() throws IOException {
    dataset = PublishedPoints.load();
    comparisons = AccuracyStudy.compare(dataset.points(), Efficiency.defaults());
    table = AccuracyStudy.render(dataset, List.of(
        new AccuracyStudy.Run("defaults", Efficiency.defaults(), comparisons),
        new AccuracyStudy.Run("old defaults", OLD_DEFAULTS,
            AccuracyStudy.compare(dataset.points(), OLD_DEFAULTS)),
        new AccuracyStudy.Run("3-parameter fit", FIT_3,
            AccuracyStudy.compare(dataset.points(), FIT_3))));
    Files.createDirectories(GENERATED.getParent());
    Files.writeString(GENERATED, table, StandardCharsets.UTF_8);
  }

  @Test
  void theDatasetMeetsTheIssuesFloor() {
    // At least 20 ITL/throughput figures from at least 3 sources, each source named in the file.
    List<Comparison> targeted =
        comparisons.stream().filter(c -> c.group() != Group.TTFT).toList();
    assertThat(targeted).hasSizeGreaterThanOrEqualTo(20);
    assertThat(targeted.stream().map(c -> c.point().source()).distinct().count()).isGreaterThanOrEqualTo(3);
    assertThat(dataset.points().stream().map(Point::source).collect(Collectors.toSet()))
        .isSubsetOf(dataset.sources().stream().map(PublishedPoints.Source::key).toList());
    // The split alternates in file order, fixed before any prediction was looked at.

    assertThat(targeted).allSatisfy(c -> assertThat(c.predicted()).isFinite().isPositive());
  }

  @Test
  void theDefaultsAreTheFitAndMeetTheTargetOnHeldOutPoints() {
    assertThat(Efficiency.defaults()).isEqualTo(FIT);
    // The issue's target: median |error| ≤ 15% on ITL/TPOT and on output throughput, reported on
    // points the fit did not see.
    for (Group g : List.of(Group.ITL, Group.THROUGHPUT)) {
      assertThat(AccuracyStudy.medianAbsErrorPercent(
              comparisons, c -> c.group() == g))
          .as("held-out %s", g)
          .isLessThanOrEqualTo(15.0);
    }
  }

  @Test
  void singleUserItlOnTheNewestEngineStaysWithinTenPercent() {
    // NIM 1.8.0 at c = 1 (5000/500 and 500/2000): the fit must not buy throughput accuracy with
    // pessimistic small-batch latency (the 3-parameter fit's +23%).
    List<Comparison> single = comparisons.stream()
        .filter(c -> c.group() == Group.ITL && c.point().concurrency() == 1)
        .toList();
    assertThat(single).hasSize(2);
    assertThat(single).allSatisfy(c -> assertThat(Math.abs(c.errorPercent())).isLessThan(10.0));
  }

  @Test
  void aStaticBatchOfOneHasTheRooflinePrefillAsTtft() {
    // trtllm-0.9's batch-1 first-token latency, Mistral 7B FP8 on one H100, 128 prompt tokens:
    // the predictor's TTFT is exactly one roofline iteration of the 128-token prefill.
    Point p = dataset.points().stream()
        .filter(x -> x.model().equals("mistral-7b") && x.gpu().equals("h100-sxm")
            && x.outputTokens() == 1 && x.inputTokens() == 128)
        .findFirst().orElseThrow();
    EngineConfig c = Predictor.config(p, Efficiency.defaults());
    assertThat(c.model()).isEqualTo(Presets.model("mistral-7b"));
    assertThat(c.maxNumSeqs()).isEqualTo(1);
    assertThat(c.maxBatchedTokens()).isEqualTo(8192); // max(8,192, 1 × 128)
    Roofline r = new Roofline(c);
    double ttftMs = Predictor.predict(p, Efficiency.defaults()).ttftMs();
    assertThat(ttftMs).isCloseTo(r.iterationNanos(128, 128 * 129 / 2.0, 0, 1) / 1e6, within(0.01));
  }

  @Test
  void nimsKvCacheHolds86RequestsOf5500Tokens() {
    // The doc's explanation of NIM's queueing at c ≥ 100: Llama 70B FP8 on 2 × H100, FP8 KV.
    // Per GPU: 80 GiB × 0.9 − 70,553,706,496 B / 2 − 3 GiB = 38,811,332,608 B; a token's KV is
    // 2 × 80 layers × 4 KV heads × 128 × 1 B = 81,920 B; 16-token blocks: 29,610 blocks.
    Point p = dataset.points().stream().filter(x -> x.id().equals("nim-08")).findFirst().orElseThrow();
    Roofline r = new Roofline(Predictor.config(p, Efficiency.defaults()));
    assertThat(r.kvCapacityTokens()).isEqualTo(473_760L);
    assertThat(r.kvCapacityTokens() / (p.inputTokens() + p.outputTokens())).isEqualTo(86L);
  }

  @Test
  void theDocHoldsTheGeneratedTable() throws IOException {
    String doc = Files.readString(DOC, StandardCharsets.UTF_8);
    int begin = doc.indexOf(AccuracyStudy.BEGIN);
    int end = doc.indexOf(AccuracyStudy.END);
    assertThat(begin).as("docs/SIMULATOR.md has the accuracy block markers").isNotNegative();
    assertThat(end).isGreaterThan(begin);
    String block = doc.substring(begin, end + AccuracyStudy.END.length()) + "\n";
    assertThat(block)
        .as("docs/SIMULATOR.md's accuracy table is stale: copy target/accuracy-table.md over it")
        .isEqualTo(table);
  }
}

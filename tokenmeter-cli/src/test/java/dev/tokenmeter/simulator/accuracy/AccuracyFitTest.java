package dev.tokenmeter.simulator.accuracy;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import dev.tokenmeter.simulator.accuracy.AccuracyFit.Fold;
import dev.tokenmeter.simulator.accuracy.AccuracyFit.Simulated;
import dev.tokenmeter.simulator.accuracy.AccuracyStudy.Comparison;
import dev.tokenmeter.simulator.accuracy.AccuracyStudy.Group;
import dev.tokenmeter.simulator.accuracy.Predictor.Prediction;
import dev.tokenmeter.simulator.accuracy.PublishedPoints.Dataset;
import dev.tokenmeter.simulator.accuracy.PublishedPoints.Point;
import dev.tokenmeter.simulator.engine.Calibration;
import dev.tokenmeter.simulator.engine.EngineProfile;
import dev.tokenmeter.simulator.engine.HeldOutAccuracy;
import dev.tokenmeter.simulator.engine.Platform;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.stream.Collectors;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * The simulator's accuracy against published measurements (docs/ACCURACY.md; docs/SIMULATOR.md, Accuracy): every
 * point simulated at the committed calibration, one fit round from there, leave-one-source-out,
 * and the doc's table. Writes {@code target/accuracy-table.md}; to refresh the doc after a model
 * or data change, refit (below), paste the factors into {@code Calibration}, and copy that file over
 * the block. About 10 min on the project's shared 2-core machine (every point at five candidate
 * k, every fold at every candidate to its fixed point).
 *
 * <p>The full fit from scratch, rounds of simulate-then-fit until the factors stop moving:
 *
 * <pre>
 * ./mvnw -q -o test -Paccuracy -Daccuracy.refit=true
 * </pre>
 *
 * writes {@code target/accuracy-fit.txt} with each candidate k's factors (the least objective's for
 * {@code Calibration}, the others for {@code FitParams.candidates}). Every run also
 * writes {@code target/accuracy-sensitivity.md}: each fold refitted without each other source in
 * turn, the rows that move a held-out median by 3 points or more; the doc holds it too.
 */
@Tag("accuracy") // about 7 minutes: its own profile, ./mvnw test -Paccuracy (CI runs it after verify)
class AccuracyFitTest {
  private static final Path DOC = Path.of("docs", "ACCURACY.md");
  private static final Path GENERATED = Path.of("tokenmeter-cli/target", "accuracy-table.md");
  private static final Path SENSITIVITY = Path.of("tokenmeter-cli/target", "accuracy-sensitivity.md");

  /**
   * How far above its target each source's leave-one-source-out median may be, in points: the
   * excess the committed model has (docs/ACCURACY.md lists them) plus 2 points of slack. A source
   * without an entry for a group must meet the target within 2 points.
   */
  static final Map<String, Double> MARGINS = Map.ofEntries(
      Map.entry("trtllm-0.9/THROUGHPUT", 13.0),
      Map.entry("rocm-vllm/THROUGHPUT", 75.0),
      Map.entry("trtllm-0.6/THROUGHPUT", 6.0),
      Map.entry("datacrunch-sglang/TPOT", 70.0),
      Map.entry("datacrunch-sglang/THROUGHPUT", 20.0),
      Map.entry("datacrunch-sglang/TTFT", 20.0),
      Map.entry("rtx4090-vllm/TTFT", 91.0),
      Map.entry("gpustack-vllm/THROUGHPUT", 4.0),
      Map.entry("gpustack-vllm/TTFT", 32.0),
      Map.entry("gpustack-sglang/TPOT", 15.0),
      Map.entry("gpustack-sglang/THROUGHPUT", 41.0),
      Map.entry("gpustack-sglang/TTFT", 28.0),
      Map.entry("lmdeploy/TPOT", 11.0),
      Map.entry("lmdeploy/THROUGHPUT", 4.0));

  private static Dataset dataset;
  private static Map<Double, List<Simulated>> byOverlap;
  private static List<Simulated> all;
  private static List<Fold> folds;
  private static String table;
  private static String sensitivity;

  @BeforeAll
  static void runStudy() throws IOException {
    dataset = PublishedPoints.load();
    byOverlap = AccuracyFit.simulateCandidates(dataset);
    all = byOverlap.get(Calibration.OVERLAP_EXPONENT);
    folds = AccuracyFit.leaveOneSourceOut(dataset, byOverlap);
    table = Tables.render(dataset, FitParams.committed(), AccuracyFit.exact(all), folds,
        allSourceObjectives());
    Files.createDirectories(GENERATED.getParent());
    Files.writeString(GENERATED, table, StandardCharsets.UTF_8);
    sensitivity = Tables.sensitivity(folds, AccuracyFit.sensitivity(dataset, byOverlap, folds));
    Files.writeString(SENSITIVITY, sensitivity, StandardCharsets.UTF_8);
    if (Boolean.getBoolean("accuracy.refit")) {
      StringBuilder fits = new StringBuilder();
      for (FitParams c : FitParams.candidates()) {
        List<Simulated> fitted = AccuracyFit.fitAll(dataset, c, 12);
        fits.append(fitted.get(0).at()).append(String.format(Locale.ROOT, " (objective %.4f)%n",
            new LinearModel(fitted).objective(fitted.get(0).at())));
      }
      Files.writeString(Path.of("tokenmeter-cli/target", "accuracy-fit.txt"), fits, StandardCharsets.UTF_8);
    }
  }

  /** The fit objective of every candidate k at its own fixed point, keyed by k. */
  private static Map<Double, Double> allSourceObjectives() {
    Map<Double, Double> out = new LinkedHashMap<>();
    for (FitParams c : FitParams.candidates()) {
      out.put(c.overlap(), new LinearModel(byOverlap.get(c.overlap())).objective(c));
    }
    return out;
  }

  @Test
  void theDatasetMeetsTheIssuesFloor() {
    // At least 200 points from at least 6 sources, every point's source named in the file.
    assertThat(dataset.points()).hasSizeGreaterThanOrEqualTo(200);
    assertThat(dataset.sources()).hasSizeGreaterThanOrEqualTo(6);
    assertThat(dataset.points().stream().map(Point::source).collect(Collectors.toSet()))
        .containsExactlyInAnyOrderElementsOf(
            dataset.sources().stream().map(PublishedPoints.Source::key).toList());
    assertThat(dataset.sources()).allSatisfy(s -> EngineProfile.of(s.profile()));
    assertThat(AccuracyFit.exact(all)).allSatisfy(c -> assertThat(c.predicted()).isFinite().isPositive());
  }

  @Test
  void theCommittedCalibrationIsTheFitsFixedPoint() {
    // One fit round from the committed factors, on the points simulated at them, returns them:
    // the constants are what the fit of this dataset and this model gives. A change of either
    // that moves the fit fails here; refit (class comment) and commit the new factors. The same
    // for every candidate k (FitParams.candidates), whose fixed points the folds start from.
    assertThat(FitParams.candidates()).contains(FitParams.committed());
    for (FitParams c : FitParams.candidates()) {
      FitParams refit = AccuracyFit.fit(byOverlap.get(c.overlap()), p -> true, c);
      assertThat(refit).as("refit: %s", refit).isEqualTo(c);
    }
  }

  @Test
  void everyFoldReachesItsOwnFixedPoint() {
    // A fold's rounds stop when one more fit of its simulations returns its factors; a fold
    // still moving after AccuracyFit.FOLD_ROUNDS would publish factors no fit stands behind.
    assertThat(folds).allSatisfy(f -> assertThat(f.rounds()).as("%s's rounds", f.source())
        .isLessThan(AccuracyFit.FOLD_ROUNDS));
  }

  @Test
  void theCommittedOverlapHasTheLeastObjectiveOfTheCandidates() {
    // k is chosen as the fit chooses its factors: the candidate whose fixed point has the least
    // objective (TPOT and throughput of every source). Each fold chooses its own the same way.
    Map<Double, Double> objectives = allSourceObjectives();
    double best = objectives.entrySet().stream().min(Map.Entry.comparingByValue()).orElseThrow().getKey();
    assertThat(best).as("objectives by k: %s", objectives).isEqualTo(Calibration.OVERLAP_EXPONENT);
  }

  @Test
  void everySourceMeetsItsTargetHeldOutWithinItsMargin() {
    for (Fold fold : folds) {
      for (Group g : Group.values()) {
        if (Double.isNaN(g.targetPercent)) {
          continue;
        }
        double median = AccuracyStudy.medianAbsErrorPercent(fold.comparisons(), c -> c.group() == g);
        if (Double.isNaN(median)) {
          continue;
        }
        double margin = MARGINS.getOrDefault(fold.source() + "/" + g.name(), 2.0);
        assertThat(median).as("%s %s held out", fold.source(), g)
            .isLessThanOrEqualTo(g.targetPercent + margin);
      }
    }
  }

  @Test
  void aHeldOutSourceNeverInformsItsOwnFold() {
    // SGLang has two sources. Without the second, holding out the first leaves no SGLang point:
    // the fold's SGLang profile takes the vLLM profile's fold overheads, not its own fit.
    List<Simulated> oneSglangSource =
        all.stream().filter(x -> !x.point().source().equals("gpustack-sglang")).toList();
    FitParams fold = AccuracyFit.foldParams(oneSglangSource, "datacrunch-sglang");
    int s = FitParams.index(EngineProfile.SGLANG);
    int v = FitParams.index(EngineProfile.VLLM);
    assertThat(fold.iterationNanos()[s]).isEqualTo(fold.iterationNanos()[v]);
    assertThat(fold.perSequenceNanos()[s]).isEqualTo(fold.perSequenceNanos()[v]);
    // LMDeploy has one source: held out, its profile takes TensorRT-LLM's fold overheads
    FitParams lmdeploy = AccuracyFit.foldParams(all, "lmdeploy");
    int l = FitParams.index(EngineProfile.LMDEPLOY);
    int t = FitParams.index(EngineProfile.TRT_LLM);
    assertThat(lmdeploy.iterationNanos()[l]).isEqualTo(lmdeploy.iterationNanos()[t]);
    assertThat(lmdeploy.perSequenceNanos()[l]).isEqualTo(lmdeploy.perSequenceNanos()[t]);
  }

  @Test
  void theLinearModelIsExactAtTheFactorsSimulated() {
    List<Comparison> exact = AccuracyFit.exact(all);
    List<Comparison> linear = AccuracyFit.linearized(all, FitParams.committed());
    assertThat(linear).hasSameSizeAs(exact);
    for (int i = 0; i < exact.size(); i++) {
      assertThat(linear.get(i).predicted()).isCloseTo(exact.get(i).predicted(), within(1e-9 * exact.get(i).predicted()));
    }
  }

  @Test
  void theFitsObjectiveCountsTpotAndThroughputNotTtft() {
    // The flat-array objective the fit evaluates equals the reference one over the exact
    // comparisons, and moving only TTFT figures would not change it.
    List<String> sources = dataset.sources().stream().map(PublishedPoints.Source::key).toList();
    double reference = AccuracyStudy.objective(AccuracyFit.exact(all), sources);
    assertThat(new LinearModel(all).objective(FitParams.committed()))
        .isCloseTo(reference, within(1e-9 * reference));
    List<Comparison> noTtft = AccuracyFit.exact(all).stream()
        .filter(c -> c.group() != Group.TTFT).toList();
    assertThat(AccuracyStudy.objective(noTtft, sources)).isEqualTo(reference);
  }

  @Test
  void theRocmExtraIsFittedOnItsOwnSourceAndHeldOutTakesNone() {
    Fold rocm = folds.stream().filter(f -> f.source().equals("rocm-vllm")).findFirst().orElseThrow();
    int r = Platform.ROCM.ordinal();
    assertThat(rocm.params().platformIterationNanos()[r]).isZero();
    assertThat(rocm.params().platformPerSequenceNanos()[r]).isZero();
    // without the ROCm points the shared factors are what the CUDA points alone give: the MI300X
    // runs do not move them
    FitParams cudaOnly = AccuracyFit.fit(all, p -> !p.gpu().equals("mi300x"), FitParams.committed());
    assertThat(cudaOnly.mfu()).isEqualTo(FitParams.committed().mfu());
    assertThat(cudaOnly.mbu()).isEqualTo(FitParams.committed().mbu());
    assertThat(cudaOnly.iterationNanos()).isEqualTo(FitParams.committed().iterationNanos());
    assertThat(cudaOnly.perSequenceNanos()).isEqualTo(FitParams.committed().perSequenceNanos());
  }

  @Test
  void engineRunMeasuresWhatSimulateMeasures() {
    // The study's direct engine loop against `tokenmeter simulate`'s path (bench's stage runner)
    // on fixed-length closed loops and a static batch: same engine, same metrics.
    for (String id : List.of("nim-03", "silybench-03", "trtllm-0.9-19", "rtx4090-vllm-02")) {
      Point p = dataset.points().stream().filter(x -> x.id().equals(id)).findFirst().orElseThrow();
      EngineProfile e = AccuracyFit.profiles(dataset).get(p.source());
      Prediction fast = Predictor.predict(p, e, FitParams.committed());
      Prediction slow = Predictor.predictViaSimulation(p, e, FitParams.committed());
      assertThat(fast.ttftMs()).as(id).isCloseTo(slow.ttftMs(), within(0.01 * slow.ttftMs()));
      assertThat(fast.tpotMs()).as(id).isCloseTo(slow.tpotMs(), within(0.01 * slow.tpotMs()));
      assertThat(fast.outputTps()).as(id).isCloseTo(slow.outputTps(), within(0.01 * slow.outputTps()));
    }
  }

  @Test
  void whatSimulatePrintsIsTheStudysHeldOutAccuracy() {
    // HeldOutAccuracy's figures (simulate's accuracy lines, summary.json's engine.accuracy) are
    // the study's, to the 0.1 point they are printed with: a refit that moves one fails here.
    List<Comparison> held = folds.stream().flatMap(f -> f.comparisons().stream()).toList();
    for (Group g : Group.values()) {
      HeldOutAccuracy.Figure printed = HeldOutAccuracy.POOLED.get(HeldOutAccuracy.Quantity.valueOf(g.name()));
      assertThat(printed).as("every source, %s", g).isEqualTo(figure(held, g));
    }
    assertThat(HeldOutAccuracy.SOURCES).extracting(HeldOutAccuracy.Source::key)
        .containsExactlyElementsOf(folds.stream().map(Fold::source).toList());
    for (Fold fold : folds) {
      HeldOutAccuracy.Source printed = HeldOutAccuracy.SOURCES.stream()
          .filter(s -> s.key().equals(fold.source())).findFirst().orElseThrow();
      PublishedPoints.Source source = dataset.sources().stream()
          .filter(s -> s.key().equals(fold.source())).findFirst().orElseThrow();
      assertThat(printed.profile()).as(fold.source()).isEqualTo(source.profile());
      boolean rocm = dataset.points().stream()
          .anyMatch(p -> p.source().equals(fold.source()) && p.gpu().equals("mi300x"));
      assertThat(printed.platform()).as(fold.source()).isEqualTo(rocm ? Platform.ROCM : Platform.CUDA);
      for (Group g : Group.values()) {
        HeldOutAccuracy.Figure expected = figure(fold.comparisons(), g);
        assertThat(printed.figures().get(HeldOutAccuracy.Quantity.valueOf(g.name())))
            .as("%s %s", fold.source(), g).isEqualTo(expected);
      }
    }
  }

  /** The held-out figure of group {@code g} as printed (0.1 point); null when there is none. */
  private static HeldOutAccuracy.Figure figure(List<Comparison> comparisons, Group g) {
    List<Comparison> c = comparisons.stream().filter(x -> x.group() == g).toList();
    if (c.isEmpty()) {
      return null;
    }
    return new HeldOutAccuracy.Figure(c.size(),
        Double.parseDouble(String.format(Locale.ROOT, "%.1f", AccuracyStudy.medianAbsErrorPercent(c, x -> true))),
        Double.parseDouble(String.format(Locale.ROOT, "%.1f", AccuracyStudy.p90AbsErrorPercent(c, x -> true))));
  }

  @Test
  void theDocHoldsTheGeneratedSensitivityTable() throws IOException {
    assertDocBlock(Tables.SENSITIVITY_BEGIN, Tables.SENSITIVITY_END, sensitivity, "sensitivity",
        "tokenmeter-cli/target/accuracy-sensitivity.md");
  }

  @Test
  void theDocHoldsTheGeneratedTable() throws IOException {
    assertDocBlock(Tables.BEGIN, Tables.END, table, "accuracy", "tokenmeter-cli/target/accuracy-table.md");
  }

  /** docs/ACCURACY.md's block from {@code begin} to {@code end} is {@code rendered}. */
  private static void assertDocBlock(String begin, String end, String rendered, String what, String file)
      throws IOException {
    String doc = Files.readString(DOC, StandardCharsets.UTF_8);
    int from = doc.indexOf(begin);
    int to = doc.indexOf(end);
    assertThat(from).as("docs/ACCURACY.md has the %s block markers", what).isNotNegative();
    assertThat(to).isGreaterThan(from);
    String block = doc.substring(from, to + end.length()) + "\n";
    assertThat(block).as("docs/ACCURACY.md's %s table is stale: copy %s over it", what, file).isEqualTo(rendered);
  }
}

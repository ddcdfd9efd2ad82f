package dev.tokenmeter.simulator.accuracy;

import dev.tokenmeter.simulator.accuracy.AccuracyStudy.Comparison;
import dev.tokenmeter.simulator.accuracy.AccuracyStudy.Group;
import dev.tokenmeter.simulator.accuracy.Predictor.Efficiency;
import dev.tokenmeter.simulator.accuracy.PublishedPoints.Point;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledIfSystemProperty;

/**
 * Fits MFU, MBU and the per-iteration overhead (3 global parameters) on the calibration points by
 * a grid search minimising {@link AccuracyStudy#objective} (mean of the ITL and throughput medians
 * of |error|), then reports the held-out errors with the fit. Minutes of CPU, so off by default:
 *
 * <pre>
 * ./mvnw -q -o test -Dtest=AccuracyCalibrationTest -Daccuracy.calibrate=true
 * </pre>
 *
 * writes {@code target/accuracy-calibration.md}. The fit it found is in docs/SIMULATOR.md.
 */
@EnabledIfSystemProperty(named = "accuracy.calibrate", matches = "true")
class AccuracyCalibrationTest {
  static final double[] MFU = {0.3, 0.4, 0.5, 0.6, 0.7, 0.8};
  static final double[] MBU = {0.4, 0.5, 0.6, 0.7, 0.8, 0.9};
  static final double[] OVERHEAD_MS = {0.5, 1, 2, 3, 4, 6, 8};

  @Test
  void gridSearch() throws IOException {
    List<Point> all = PublishedPoints.load().points();
    // TTFT-only points do not enter the objective: leave them out of the search.
    List<Point> cal = all.stream()
        .filter(p -> p.calibration() && (p.measured().itlMs().isPresent()
            || p.measured().outputTps().isPresent() || p.measured().outputTpsPerGpu().isPresent()
            || p.measured().batchLatencySeconds().isPresent()))
        .toList();
    StringBuilder log = new StringBuilder("| MFU | MBU | overhead ms | objective | ITL | throughput |\n|---|---|---|---|---|---|\n");
    Efficiency best = null;
    double bestScore = Double.POSITIVE_INFINITY;
    for (double mfu : MFU) {
      for (double mbu : MBU) {
        for (double ms : OVERHEAD_MS) {
          Efficiency e = new Efficiency(mfu, mbu, Math.round(ms * 1e6));
          List<Comparison> c = AccuracyStudy.compare(cal, e);
          double score = AccuracyStudy.objective(c);
          log.append(row(e, c, score));
          if (score < bestScore) {
            bestScore = score;
            best = e;
          }
        }
      }
    }
    List<Comparison> held = AccuracyStudy.compare(all.stream().filter(p -> !p.calibration()).toList(), best);
    List<Comparison> heldDefaults =
        AccuracyStudy.compare(all.stream().filter(p -> !p.calibration()).toList(), Efficiency.defaults());
    String summary = String.format(Locale.ROOT,
        "best on calibration: %s objective %.1f%%%nheld-out with it: %s%nheld-out with defaults: %s%n",
        best, bestScore, row(best, held, AccuracyStudy.objective(held)),
        row(Efficiency.defaults(), heldDefaults, AccuracyStudy.objective(heldDefaults)));
    System.out.println(summary);
    Files.createDirectories(Path.of("target"));
    Files.writeString(Path.of("target", "accuracy-calibration.md"), summary + "\n" + log, StandardCharsets.UTF_8);
  }

  private static String row(Efficiency e, List<Comparison> c, double score) {
    return String.format(Locale.ROOT, "| %.2f | %.2f | %.2f | %.1f%% | %.1f%% | %.1f%% |%n",
        e.mfu(), e.mbu(), e.overheadNanos() / 1e6, score,
        AccuracyStudy.medianAbsErrorPercent(c, x -> x.group() == Group.ITL),
        AccuracyStudy.medianAbsErrorPercent(c, x -> x.group() == Group.THROUGHPUT));
  }
}

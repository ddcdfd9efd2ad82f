package dev.tokenmeter.simulator.accuracy;

import dev.tokenmeter.simulator.accuracy.AccuracyFit.Simulated;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledIfSystemProperty;

@EnabledIfSystemProperty(named = "accuracy.explore", matches = "true")
class AccuracyExploreTest {
  @Test
  void explore() {
    var d = PublishedPoints.load();
    FitParams f = FitParams.committed();
    for (int round = 0; round < 6; round++) {
      long t0 = System.nanoTime();
      List<Simulated> sims = AccuracyFit.simulate(d, d.points(), f);
      System.out.println("simulate all: " + (System.nanoTime() - t0) / 1_000_000 + " ms at " + f);
      report(d, AccuracyFit.exact(sims));
      long t1 = System.nanoTime();
      FitParams fit = AccuracyFit.fit(sims, p -> true, f);
      System.out.println("fit " + (System.nanoTime() - t1) / 1_000_000 + " ms: " + fit);
      if (fit.equals(f)) break;
      f = fit;
    }
  }

  static void report(PublishedPoints.Dataset d, List<AccuracyStudy.Comparison> c) {
    for (var g : AccuracyStudy.Group.values()) {
      for (var s : d.sources()) {
        double m = AccuracyStudy.medianAbsErrorPercent(c, x -> x.group() == g && x.point().source().equals(s.key()));
        double sg = AccuracyStudy.medianErrorPercent(c, x -> x.group() == g && x.point().source().equals(s.key()));
        if (!Double.isNaN(m)) System.out.printf("%-10s %-18s med %6.1f%% signed %+6.1f%%%n", g, s.key(), m, sg);
      }
    }
  }
}

package dev.tokenmeter.report;

import dev.tokenmeter.core.analysis.ComparedQuantity;
import dev.tokenmeter.core.analysis.RunComparison;
import dev.tokenmeter.core.analysis.StageComparison;
import dev.tokenmeter.core.analysis.StageComparison.Row;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * Renders a bench run compared with a production window ({@code compare DIR --production LEDGER}):
 * per concurrency both share, the verdict in words ("production is 18% slower than the benchmark
 * at c=8, significant") and the table of {@link CompareReport}. The benchmark is A, production B.
 * Pure functions; stateless.
 */
public final class ProductionCompareReport {
  private static final String NL = System.lineSeparator();

  private ProductionCompareReport() {}

  /** The console text: both sides, a verdict per matched concurrency, then its table. */
  public static String console(RunFolder bench, String production, RunComparison rc, StageComparison.Settings settings) {
    StringBuilder sb = new StringBuilder();
    SavedSummary s = bench.summary();
    sb.append("A (benchmark): ").append(bench.dir()).append(" - ").append(s.targetUrl())
        .append(s.model() == null ? "" : ", model " + s.model()).append(", started ").append(s.startedAt()).append(NL);
    sb.append("B (production): ").append(production).append(NL);
    for (StageComparison st : rc.stages()) {
      sb.append(NL).append(verdict(st, settings)).append(NL);
      sb.append(CompareReport.stageTitle(st, "B")).append(NL);
      List<String[]> table = new ArrayList<>();
      table.add(new String[] {"metric", "A", "B", "change", CompareReport.ci(settings.alpha()) + " of change", "verdict"});
      for (Row r : st.rows()) {
        table.add(CompareReport.cells(r, "B", settings));
      }
      sb.append(CompareReport.aligned(table));
    }
    if (!rc.onlyInA().isEmpty()) {
      sb.append(NL).append("Benchmark stages with no production requests at their concurrency (not compared): ")
          .append(String.join(", ", rc.onlyInA())).append(NL);
    }
    if (!rc.onlyInB().isEmpty()) {
      sb.append("Production concurrencies the benchmark did not run (not compared): ")
          .append(String.join(", ", rc.onlyInB().stream().map(ProductionCompareReport::label).toList())).append(NL);
    }
    sb.append(NL).append(CompareReport.footnote(settings)).append(" Production's blocks of time are cut from when"
        + " each request started, per concurrency; requests of one concurrency are matched by the requests in"
        + " flight to their upstream at their start (docs/PROXY.md, \"Production reports\").").append(NL);
    return sb.toString();
  }

  /**
   * The verdict at one concurrency, from the per-user decode TPS p50 row: {@code "At c=8, production
   * is 18% slower than the benchmark (per-user decode TPS p50 41 vs 50 tokens/s), significant
   * (p=0.003); the p-value rests on A 12, B 30 one-second blocks."}
   */
  public static String verdict(StageComparison st, StageComparison.Settings settings) {
    Row r = st.rows().stream().filter(x -> x.quantity() == ComparedQuantity.DECODE_TPS_P50).findFirst().orElseThrow();
    String figures = String.format(Locale.ROOT, "(per-user decode TPS p50 %s vs %s tokens/s)",
        ProductionWords.num(r.b()), ProductionWords.num(r.a()));
    double pct = r.changePercent();
    String how = Double.isNaN(pct) ? "not comparable"
        : String.format(Locale.ROOT, "%.0f%% %s than", Math.abs(pct), pct < 0 ? "slower" : "faster");
    String p = CompareReport.p(r.test().pAdjusted(), settings.alpha());
    String significance = switch (r.verdict()) {
      case BETTER, WORSE -> "significant (" + p + ")";
      case NEGLIGIBLE -> "significant (" + p + ") but negligible";
      case NO_SIGNIFICANT_DIFFERENCE -> "not significant (" + p + ")";
      case NOT_TESTED -> "not tested: " + r.test().note();
    };
    String basis = r.test().basis() == null ? "" : "; the p-value rests on " + r.test().basis();
    return "At " + st.label() + ", production is " + how + " the benchmark " + figures + ", " + significance + basis + ".";
  }

  private static String label(String indexed) {
    int space = indexed.indexOf(' ');
    return space < 0 ? indexed : indexed.substring(space + 1);
  }
}

package dev.tokenmeter.run;

import dev.tokenmeter.core.analysis.Cost;
import dev.tokenmeter.core.analysis.StageResult;
import dev.tokenmeter.report.CostReport;
import dev.tokenmeter.report.RunSummary;
import java.io.PrintStream;
import java.util.ArrayList;
import java.util.List;

/**
 * What a run's stages cost under the command's prices ({@code --price-in/--price-out}, {@code
 * --gpu-cost}; docs/METRICS.md, "Cost"): the section of {@code summary.json} and the lines under
 * each stage's table. A null model (no price given) gives nothing. Stateless.
 */
public final class RunCost {
  private RunCost() {}

  /** The prices and each stage's cost, for summary.json; null when {@code model} is. */
  public static RunSummary.Pricing pricing(Cost.Model model, List<StageResult> results) {
    if (model == null) {
      return null;
    }
    List<Cost.StageCost> costs = new ArrayList<>();
    for (StageResult r : results) {
      costs.add(Cost.of(model, r));
    }
    return new RunSummary.Pricing(model, costs);
  }

  /** Prints stage {@code r}'s cost lines, when a price was given. */
  public static void print(PrintStream out, Cost.Model model, StageResult r) {
    if (model != null) {
      out.print(CostReport.lines(model, Cost.of(model, r)));
    }
  }
}

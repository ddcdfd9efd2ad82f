package dev.tokenmeter.run;

import dev.tokenmeter.core.analysis.LoadSearch;
import dev.tokenmeter.core.analysis.StageResult;
import dev.tokenmeter.core.analysis.Sweep;
import dev.tokenmeter.core.load.LoadModel;
import dev.tokenmeter.core.load.StagePlan;
import dev.tokenmeter.core.slo.Slo;
import dev.tokenmeter.core.slo.SloReport;
import java.util.List;
import java.util.OptionalDouble;

/**
 * The stages of a capacity search ({@code --find-max-concurrency}, {@code --find-max-rate}): each
 * probe is a normal stage, with the template's warm-up, window, cool-down and arrivals, at the load
 * {@link LoadSearch} picks from the SLO verdicts of the probes so far. Not thread-safe: one run
 * asks it, in order.
 */
public final class SearchSequence implements StageSequence {
  private final LoadSearch search;
  private final Slo slo;
  private final StagePlan template;

  public SearchSequence(LoadSearch search, Slo slo, StagePlan template) {
    this.search = search;
    this.slo = slo;
    this.template = template;
  }

  @Override
  public StagePlan next(List<StageResult> done) {
    List<LoadSearch.Probe> probes =
        done.stream()
            .map(r -> new LoadSearch.Probe(Sweep.load(r.plan().load()), SloReport.evaluate(slo, r).passed()))
            .toList();
    OptionalDouble next = search.next(probes);
    if (next.isEmpty()) {
      return null;
    }
    int i = done.size();
    return new StagePlan(i, load(next.getAsDouble()), template.stop(), template.warmupNanos(),
        template.cooldownNanos(), template.seed() + i, template.maxRequests());
  }

  @Override
  public int plannedStages() {
    return -1;
  }

  private LoadModel load(double value) {
    return switch (template.load()) {
      case LoadModel.Closed c -> new LoadModel.Closed((int) value, c.thinkTimeNanos());
      case LoadModel.Open o -> new LoadModel.Open(value, o.arrivals(), o.maxConcurrency());
    };
  }
}

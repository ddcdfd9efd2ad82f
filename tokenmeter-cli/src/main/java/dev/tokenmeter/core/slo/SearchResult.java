package dev.tokenmeter.core.slo;

import dev.tokenmeter.core.analysis.LoadSearch;
import dev.tokenmeter.core.analysis.StageResult;
import dev.tokenmeter.core.analysis.Sweep;
import java.util.ArrayList;
import java.util.List;

/**
 * What a {@link LoadSearch} found: the highest load that met the SLO, its goodput, and the load
 * just above it that failed and why. Immutable.
 *
 * @param search the search's settings
 * @param loadKind {@code "concurrency"} or {@code "rate"}
 * @param probes every probe, in run order
 * @param bestIndex stage index of the highest load meeting the SLO, -1 when none did
 * @param bestLoad that load, NaN when none
 * @param bestGoodputRequestsPerSecond goodput at that load, NaN when none
 * @param failedIndex stage index of the lowest load that failed, -1 when none failed
 * @param failedLoad that load, NaN when none
 * @param statement one sentence: {@code "Highest load meeting the SLO: c=37 (goodput 4.1 req/s); c=38
 *     failed ttft.p99 (912 ms > 800 ms)."}
 */
public record SearchResult(
    LoadSearch search,
    String loadKind,
    List<LoadSearch.Probe> probes,
    int bestIndex,
    double bestLoad,
    double bestGoodputRequestsPerSecond,
    int failedIndex,
    double failedLoad,
    String statement) {

  public SearchResult {
    probes = List.copyOf(probes);
  }

  /** Whether some load met the SLO. */
  public boolean found() {
    return bestIndex >= 0;
  }

  /** Reads the search's outcome off its stages and their SLO verdicts (same order). */
  public static SearchResult of(LoadSearch search, List<StageResult> stages, SloReport report) {
    List<LoadSearch.Probe> probes = new ArrayList<>();
    for (int i = 0; i < stages.size(); i++) {
      probes.add(new LoadSearch.Probe(Sweep.load(stages.get(i).plan().load()), report.stages().get(i).passed()));
    }
    double best = LoadSearch.best(probes);
    double fail = LoadSearch.lowestFailure(probes);
    int bi = indexOf(probes, best);
    int fi = indexOf(probes, fail);
    String kind = search.integer() ? "concurrency" : "rate";
    String failure = fi < 0 ? null : stages.get(fi).label() + " failed " + report.stages().get(fi).reasons();
    String statement;
    if (bi < 0) {
      statement = stages.isEmpty()
          ? "No load was probed."
          : "No load met the SLO: " + failure + "; the lowest load probed.";
    } else {
      StageResult b = stages.get(bi);
      double goodput = b.throughput().goodputRequestsPerSecond();
      statement = "Highest load meeting the SLO: " + b.label() + " (goodput " + Slo.number(round1(goodput)) + " req/s)"
          + (failure == null ? ", the search's limit; every load probed met it, raise the limit to search higher" : "; " + failure)
          + ".";
    }
    if (!search.converged(probes)) {
      statement += " (stopped after " + probes.size() + " probes, before the precision asked)";
    }
    return new SearchResult(search, kind, probes, bi < 0 ? -1 : stages.get(bi).plan().index(), best,
        bi < 0 ? Double.NaN : stages.get(bi).throughput().goodputRequestsPerSecond(),
        fi < 0 ? -1 : stages.get(fi).plan().index(), fail, statement);
  }

  private static int indexOf(List<LoadSearch.Probe> probes, double load) {
    for (int i = 0; i < probes.size(); i++) {
      if (probes.get(i).load() == load) {
        return i;
      }
    }
    return -1;
  }

  private static double round1(double v) {
    return Double.isNaN(v) ? v : Math.round(v * 10) / 10.0;
  }

}

package dev.tokenmeter.core.analysis;

import java.util.ArrayList;
import java.util.List;

/**
 * A run compared to a baseline, stage by stage. Stages are matched by load label ({@code "c=8"}),
 * in run order: each stage of B goes with the first unmatched stage of A that has its label, so
 * runs whose sweeps differ compare what they share. Immutable.
 *
 * @param stages the matched stages, in B's order
 * @param onlyInA labels of A's stages with no partner in B ({@code "#2 c=64"}: 0-based index and label)
 * @param onlyInB labels of B's stages with no partner in A
 */
public record RunComparison(
    List<StageComparison> stages, List<String> onlyInA, List<String> onlyInB) {

  public RunComparison {
    stages = List.copyOf(stages);
    onlyInA = List.copyOf(onlyInA);
    onlyInB = List.copyOf(onlyInB);
  }

  /** Whether both runs had the same stages in the same order. */
  public boolean samePlan() {
    return onlyInA.isEmpty() && onlyInB.isEmpty()
        && stages.stream().allMatch(s -> s.a().index() == s.b().index());
  }

  /** Compares run {@code b} to the baseline {@code a}, stage by stage. */
  public static RunComparison of(
      List<StageSample> a, List<StageSample> b, StageComparison.Settings settings) {
    boolean[] used = new boolean[a.size()];
    List<StageComparison> matched = new ArrayList<>();
    List<String> onlyInB = new ArrayList<>();
    for (StageSample sb : b) {
      int partner = -1;
      for (int i = 0; i < a.size() && partner < 0; i++) {
        if (!used[i] && a.get(i).label().equals(sb.label())) {
          partner = i;
        }
      }
      if (partner < 0) {
        onlyInB.add(name(sb));
      } else {
        used[partner] = true;
        matched.add(StageComparison.of(a.get(partner), sb, settings));
      }
    }
    List<String> onlyInA = new ArrayList<>();
    for (int i = 0; i < a.size(); i++) {
      if (!used[i]) {
        onlyInA.add(name(a.get(i)));
      }
    }
    return new RunComparison(matched, onlyInA, onlyInB);
  }

  private static String name(StageSample s) {
    return "#" + s.index() + " " + s.label();
  }
}

package dev.tokenmeter.run;

import dev.tokenmeter.core.analysis.RunComparison;
import dev.tokenmeter.core.analysis.StageComparison;
import dev.tokenmeter.report.RunFolder;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * Comparing saved runs, as {@code tokenmeter compare} and the end of a {@code bench --variant} run
 * do: the folders read back, then every run after the first against the first, stage by stage.
 * Stateless.
 */
public final class CompareRun {
  private CompareRun() {}

  /** Every run after the first against the first, stage by stage. */
  public static List<RunComparison> compare(List<RunFolder> runs, StageComparison.Settings settings) {
    List<RunComparison> comparisons = new ArrayList<>();
    for (int i = 1; i < runs.size(); i++) {
      comparisons.add(RunComparison.of(runs.get(0).stages(), runs.get(i).stages(), settings));
    }
    return comparisons;
  }

  /**
   * Reads a results folder given by the user; a missing or unreadable one is an {@link
   * IllegalArgumentException} naming it (a usage error).
   */
  public static RunFolder read(Path dir) {
    if (!Files.isDirectory(dir)) {
      throw new IllegalArgumentException(dir + " is not a results folder (no such directory)");
    }
    if (!Files.isRegularFile(dir.resolve("summary.json"))) {
      throw new IllegalArgumentException(dir + " is not a results folder: no summary.json in it");
    }
    try {
      return RunFolder.read(dir);
    } catch (IOException | RuntimeException e) {
      throw new IllegalArgumentException("cannot read " + dir + ": " + e.getMessage());
    }
  }
}

package dev.tokenmeter.report.html;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.tokenmeter.core.analysis.RunComparison;
import dev.tokenmeter.core.analysis.StageComparison;
import dev.tokenmeter.report.CompareJsonWriter;
import dev.tokenmeter.report.CompareReport;
import dev.tokenmeter.report.RunFolder;
import dev.tokenmeter.report.StageDetail;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The data compare.html draws from: compare.json itself ({@code compare}, the very tree {@link
 * CompareJsonWriter} writes, so every plotted number is the file's) plus the layout of the
 * overlays: {@code points[]}, the matched loads in load order, each naming where every run's values
 * sit in {@code compare} (comparison index, stage index, {@code baseline} or {@code run} side).
 * Pure function of the comparison.
 */
final class CompareData {
  private static final ObjectMapper MAPPER = new ObjectMapper();

  private CompareData() {}

  /**
   * Where one run's numbers for a point are: {@code compare.comparisons[comparison].stages[stage]},
   * its {@code side} ("baseline" for A, "run" for the others) of every row and of {@code curves}.
   */
  record Entry(String run, int comparison, int stage, String side) {}

  /**
   * One matched load: every run that has it. Repeats of a label ({@code --repeat}) are told apart by
   * their order within a comparison: "c=8", "c=8 (2)", ...
   *
   * @param closed the baseline's stage ran a closed loop
   * @param load its concurrency or rate; NaN when unknown
   */
  record Point(String label, boolean closed, double load, List<Entry> entries) {}

  /** The matched loads of every comparison, in load order when all have a load of one kind. */
  static List<Point> points(List<RunFolder> runs, List<RunComparison> comparisons) {
    Map<String, Point> byKey = new LinkedHashMap<>();
    for (int c = 0; c < comparisons.size(); c++) {
      Map<String, Integer> seen = new LinkedHashMap<>();
      List<StageComparison> stages = comparisons.get(c).stages();
      for (int s = 0; s < stages.size(); s++) {
        String label = stages.get(s).label();
        int k = seen.merge(label, 1, Integer::sum) - 1;
        String display = k == 0 ? label : label + " (" + (k + 1) + ")";
        Point p = byKey.get(display);
        if (p == null) {
          StageDetail d = runs.get(0).summary().stage(stages.get(s).a().index()).detail();
          p = new Point(display, d.loadModel() == null || d.closed(),
              d.loadModel() == null ? Double.NaN : d.closed() ? d.concurrency() : d.ratePerSecond(),
              new ArrayList<>());
          p.entries().add(new Entry(CompareReport.name(0), c, s, "baseline"));
          byKey.put(display, p);
        }
        p.entries().add(new Entry(CompareReport.name(c + 1), c, s, "run"));
      }
    }
    List<Point> points = new ArrayList<>(byKey.values());
    if (sortable(points)) {
      points.sort(Comparator.comparingDouble(Point::load)); // stable: repeats keep their order
    }
    return points;
  }

  private static boolean sortable(List<Point> points) {
    return points.stream().noneMatch(p -> Double.isNaN(p.load()))
        && points.stream().map(Point::closed).distinct().count() <= 1;
  }

  static String loadAxis(List<Point> points) {
    if (!sortable(points) || points.isEmpty()) {
      return "stage";
    }
    return points.get(0).closed() ? "concurrent users" : "requests/s";
  }

  static ObjectNode of(List<RunFolder> runs, List<RunComparison> comparisons, StageComparison.Settings s) {
    ObjectNode root = MAPPER.createObjectNode();
    ArrayNode names = root.putArray("runs");
    for (int i = 0; i < runs.size(); i++) {
      names.add(CompareReport.name(i));
    }
    List<Point> points = points(runs, comparisons);
    root.put("loadAxis", loadAxis(points));
    root.put("fluidTps", Headline.FLUID_TPS);
    ArrayNode out = root.putArray("points");
    for (Point p : points) {
      ObjectNode o = out.addObject();
      o.put("label", p.label());
      ArrayNode entries = o.putArray("entries");
      for (Entry e : p.entries()) {
        entries.addObject().put("run", e.run()).put("comparison", e.comparison()).put("stage", e.stage())
            .put("side", e.side());
      }
    }
    root.set("compare", CompareJsonWriter.tree(runs, comparisons, s));
    return root;
  }
}

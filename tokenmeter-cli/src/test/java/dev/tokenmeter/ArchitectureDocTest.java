package dev.tokenmeter;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * docs/ARCHITECTURE.md says what {@link ArchitectureTest} enforces: its "Arrows" table is
 * {@link ArchitectureTest#ARROWS} row for row (the test's table is the source; the doc follows it),
 * and in its layer diagram every allowed arrow points to a lower layer.
 */
class ArchitectureDocTest {
  private static final Path DOC = Path.of("docs", "ARCHITECTURE.md");
  private static final Pattern NAME = Pattern.compile("`([a-z.]+)`");
  private static final Pattern LAYER = Pattern.compile("^layer (\\d+)\\s+(.*)$");

  @Test
  void theArrowsTableIsArchitectureTestsTable() throws IOException {
    Map<String, Set<String>> doc = arrowsTable(lines());
    Map<String, Set<String>> test = new LinkedHashMap<>();
    ArchitectureTest.ARROWS.forEach((k, v) -> test.put(k, new TreeSet<>(v)));
    assertThat(doc).as("docs/ARCHITECTURE.md, \"Arrows\" against ArchitectureTest.ARROWS").isEqualTo(test);
  }

  @Test
  void everyArrowPointsDownTheDiagramsLayers() throws IOException {
    Map<String, Integer> layers = layers(lines());
    assertThat(layers).as("the layer diagram of docs/ARCHITECTURE.md").isNotEmpty();
    List<String> wrong = new ArrayList<>();
    ArchitectureTest.ARROWS.forEach((pkg, uses) -> {
      String from = placed(layers, pkg);
      for (String to : uses) {
        String onto = placed(layers, to);
        if (from == null || onto == null) {
          wrong.add(pkg + " -> " + to + " (not in the diagram)");
        } else if (!from.equals(onto) && layers.get(onto) >= layers.get(from)) {
          wrong.add(pkg + " -> " + to + " (layer " + layers.get(from) + " to " + layers.get(onto) + ")");
        }
      }
    });
    assertThat(wrong).as("arrows the diagram draws upward or sideways").isEmpty();
  }

  private static List<String> lines() throws IOException {
    return Files.readAllLines(DOC, StandardCharsets.UTF_8);
  }

  /** The rows of the table under "## Arrows": package names → the names they may use. */
  static Map<String, Set<String>> arrowsTable(List<String> lines) {
    Map<String, Set<String>> table = new LinkedHashMap<>();
    boolean inSection = false;
    for (String line : lines) {
      if (line.startsWith("## ")) {
        inSection = line.equals("## Arrows");
        continue;
      }
      if (!inSection || !line.startsWith("| `")) {
        continue;
      }
      String[] cells = line.split("\\|");
      String uses = cells[2].strip();
      int note = uses.indexOf(" (");
      Set<String> targets = names(note < 0 ? uses : uses.substring(0, note));
      for (String pkg : names(cells[1])) {
        table.put(pkg, targets);
      }
    }
    return table;
  }

  /** The diagram's lines {@code layer N  name name ...}: each name → its layer. */
  static Map<String, Integer> layers(List<String> lines) {
    Map<String, Integer> layers = new LinkedHashMap<>();
    for (String line : lines) {
      Matcher m = LAYER.matcher(line);
      if (m.matches()) {
        String names = m.group(2).replaceAll("\\(.*\\)", " ");
        for (String name : names.trim().split("\\s+")) {
          layers.put(name, Integer.parseInt(m.group(1)));
        }
      }
    }
    return layers;
  }

  /** The diagram's name that holds {@code pkg} ({@code core.time} → {@code core}): the longest match. */
  private static String placed(Map<String, Integer> layers, String pkg) {
    String name = pkg.endsWith("..") ? pkg.substring(0, pkg.length() - 2) : pkg;
    String best = null;
    for (String d : layers.keySet()) {
      if ((name.equals(d) || name.startsWith(d + ".")) && (best == null || d.length() > best.length())) {
        best = d;
      }
    }
    return best;
  }

  private static Set<String> names(String cell) {
    Set<String> names = new TreeSet<>();
    Matcher m = NAME.matcher(cell);
    while (m.find()) {
      names.add(m.group(1));
    }
    return names;
  }
}

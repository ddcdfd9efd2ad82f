package dev.tokenmeter;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.SortedMap;
import java.util.TreeMap;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * Every package of the tool has a {@code package-info.java} saying what it owns and what it may
 * use, and its "May use:" paragraph is its row of {@link ArchitectureTest#ARROWS}, so the Javadoc
 * cannot drift from the rule the build checks.
 *
 * <p>The paragraph starts with {@code <p>May use:} and runs to the next blank line or the end of
 * the comment; it names the row's packages as the table writes them, joined by {@code ", "}, or
 * says {@code nothing else in tokenmeter.} for an empty row. A package's row is the one whose key
 * is the package itself, or else the nearest {@code X..} above it (the way ArchUnit's package
 * matchers apply the rows; the table has no two rows that both cover one package).
 */
class PackageInfoTest {
  private static final Path ROOT = Path.of("tokenmeter-cli/src/main/java/dev/tokenmeter");
  private static final String MAY_USE = "<p>May use:";
  private static final String NOTHING = "nothing else in tokenmeter.";

  @Test
  void everyPackageHasAPackageInfo() throws IOException {
    assertThat(missingPackageInfos(ROOT)).as("packages without package-info.java under " + ROOT).isEmpty();
  }

  @Test
  void everyMayUseLineIsTheArchitectureRow() throws IOException {
    assertThat(mayUseMismatches(ROOT, ArchitectureTest.ARROWS))
        .as("package-info \"May use:\" lines that differ from ArchitectureTest.ARROWS")
        .isEmpty();
  }

  @Test
  void theWalkSeesTheProject() throws IOException {
    assertThat(packages(ROOT)).containsKeys("core", "core.analysis", "proxy.dashboard", "cli").hasSizeGreaterThan(20);
  }

  /**
   * Proves both rules can fail, on a tree of its own: {@code sse} without a package-info, {@code
   * client} with a wrong line, {@code proxy.balance} right (its row is {@code proxy..}), {@code
   * core} right with its line wrapped, and a folder without Java files, which is no package.
   */
  @Test
  void aMissingPackageInfoOrAWrongLineFails() throws IOException {
    Path root = Files.createTempDirectory("package-info-test");
    try {
      write(root.resolve("sse/SseFramer.java"), "package dev.tokenmeter.sse;\n");
      write(root.resolve("client/package-info.java"), "/**\n * Endpoints.\n *\n * <p>May use: core..\n */\n");
      write(root.resolve("proxy/balance/package-info.java"),
          "/**\n * Balancing.\n *\n * <p>May use: core.., sse.., client.., ledger.., telemetry..,\n * governance..\n */\n");
      write(root.resolve("core/package-info.java"), "/**\n * <p>May use: nothing else in\n * tokenmeter.\n */\n");
      write(root.resolve("docs/README.md"), "no Java here\n");

      assertThat(missingPackageInfos(root)).containsExactly("sse");
      assertThat(mayUseMismatches(root, ArchitectureTest.ARROWS))
          .containsExactly("client: row client.. expects \"<p>May use: core.., sse..\", found [core..]");
    } finally {
      try (Stream<Path> walk = Files.walk(root)) {
        for (Path p : walk.sorted(Comparator.reverseOrder()).toList()) {
          Files.delete(p);
        }
      }
    }
  }

  private static void write(Path file, String text) throws IOException {
    Files.createDirectories(file.getParent());
    Files.writeString(file, text);
  }

  @Test
  void rowsMatchLikeArchUnit() {
    Map<String, List<String>> arrows = ArchitectureTest.ARROWS;
    assertThat(rowOf("core", arrows)).contains("core");
    assertThat(rowOf("core.analysis", arrows)).contains("core.analysis");
    assertThat(rowOf("proxy.dashboard", arrows)).contains("proxy..");
    assertThat(rowOf("simulator.engine", arrows)).contains("simulator.engine..");
    assertThat(rowOf("simulator", arrows)).contains("simulator");
    assertThat(rowOf("report.html", arrows)).contains("report.html..");
    assertThat(rowOf("nowhere", arrows)).isEmpty();
  }

  /** Package name (dotted, relative to dev.tokenmeter) → its folder relative to {@code root}. */
  static SortedMap<String, Path> packages(Path root) throws IOException {
    SortedMap<String, Path> packages = new TreeMap<>();
    try (Stream<Path> walk = Files.walk(root)) {
      for (Path dir : walk.filter(Files::isDirectory).toList()) {
        boolean hasJava;
        try (Stream<Path> files = Files.list(dir)) {
          hasJava = files.anyMatch(f -> f.getFileName().toString().endsWith(".java"));
        }
        Path rel = root.relativize(dir);
        if (hasJava && !rel.toString().isEmpty()) {
          packages.put(rel.toString().replace(rel.getFileSystem().getSeparator(), "."), rel);
        }
      }
    }
    return packages;
  }

  static List<String> missingPackageInfos(Path root) throws IOException {
    List<String> missing = new ArrayList<>();
    for (Map.Entry<String, Path> p : packages(root).entrySet()) {
      if (!Files.exists(root.resolve(p.getValue()).resolve("package-info.java"))) {
        missing.add(p.getKey());
      }
    }
    return missing;
  }

  /** One line per package whose "May use:" paragraph is not its row: "name: why". */
  static List<String> mayUseMismatches(Path root, Map<String, List<String>> arrows) throws IOException {
    List<String> wrong = new ArrayList<>();
    for (Map.Entry<String, Path> p : packages(root).entrySet()) {
      Path info = root.resolve(p.getValue()).resolve("package-info.java");
      if (!Files.exists(info)) {
        continue;
      }
      Optional<String> row = rowOf(p.getKey(), arrows);
      if (row.isEmpty()) {
        wrong.add(p.getKey() + ": no row in ArchitectureTest.ARROWS");
        continue;
      }
      List<String> allowed = arrows.get(row.get());
      String expected = allowed.isEmpty() ? NOTHING : String.join(", ", allowed);
      List<String> found = mayUseParagraphs(Files.readString(info));
      if (found.size() != 1 || !found.get(0).equals(expected)) {
        wrong.add(p.getKey() + ": row " + row.get() + " expects \"" + MAY_USE + " " + expected + "\", found " + found);
      }
    }
    return wrong;
  }

  /** The key of the row that covers {@code pkg}: the package itself, else the nearest {@code X..}. */
  static Optional<String> rowOf(String pkg, Map<String, List<String>> arrows) {
    return arrows.keySet().stream()
        .filter(k -> k.endsWith("..") ? covers(k.substring(0, k.length() - 2), pkg) : k.equals(pkg))
        .max(Comparator.comparingInt((String k) -> k.endsWith("..") ? k.length() - 2 : Integer.MAX_VALUE));
  }

  private static boolean covers(String base, String pkg) {
    return pkg.equals(base) || pkg.startsWith(base + ".");
  }

  /** The text after each {@code <p>May use:} up to a blank comment line or the comment's end. */
  static List<String> mayUseParagraphs(String source) {
    List<String> paragraphs = new ArrayList<>();
    List<String> lines = source.lines().map(PackageInfoTest::commentText).toList();
    for (int i = 0; i < lines.size(); i++) {
      int at = lines.get(i).indexOf(MAY_USE);
      if (at < 0) {
        continue;
      }
      List<String> parts = new ArrayList<>(List.of(lines.get(i).substring(at + MAY_USE.length())));
      for (int j = i + 1; j < lines.size() && !lines.get(j).isBlank() && !lines.get(j).startsWith("*/"); j++) {
        parts.add(lines.get(j));
      }
      paragraphs.add(parts.stream().map(String::strip).collect(Collectors.joining(" ")).strip());
    }
    return paragraphs;
  }

  /** A Javadoc line without its leading star; the line that closes the comment, as its marker. */
  private static String commentText(String line) {
    String s = line.strip();
    if (s.startsWith("*/")) {
      return "*/";
    }
    return s.startsWith("*") ? s.substring(1) : s;
  }
}

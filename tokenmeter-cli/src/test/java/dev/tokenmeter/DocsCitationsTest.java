package dev.tokenmeter;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.charset.MalformedInputException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * Every citation of a doc names something the doc has: code, tests, scripts, the README and the
 * docs cite a page of docs/ by a quoted heading ({@code docs/PERFORMANCE.md, "Memory"}), a bare
 * capitalised word ({@code docs/SIMULATOR.md Accuracy}: a heading that holds it), a link
 * anchor ({@code SIMULATOR.md#accuracy}) or a section number ({@code §3}: a heading numbered 3).
 * A heading here is a Markdown heading or the bold words that open a paragraph or list item.
 * A citation of a heading that is gone fails, and so does any citation of the history folder: its
 * dated logs are kept, not cited.
 *
 * <p>Comment prefixes and line breaks are folded into spaces first, so a heading quoted across two
 * lines of a comment is still one citation.
 */
class DocsCitationsTest {
  private static final Path DOCS = Path.of("docs");
  private static final Path HISTORY = DOCS.resolve("history");
  private static final List<Path> ROOTS =
      List.of(Path.of("tokenmeter-cli"), Path.of("tokenmeter-junit5"), Path.of("tokenmeter-bom"),
          Path.of("examples"), Path.of("bench"), Path.of("scripts"), DOCS, Path.of("README.md"),
          Path.of("CONTRIBUTING.md"), Path.of("pom.xml"));
  private static final Set<String> TEXT = Set.of("java", "sh", "md", "json", "xml", "py", "txt", "yml", "yaml");

  /** A doc's name, maybe a Markdown link to it, then what it cites. */
  private static final Pattern CITATION = Pattern.compile(
      "(?:docs/)?\\[?\\b([A-Z][A-Z_]*\\.md)\\]?(?:\\((?:docs/)?[A-Z][A-Z_]*\\.md(?:#([a-z0-9-]+))?\\)|#([a-z0-9-]+))?"
          + "(?:,?\\s*§\\s*(\\d+))?"
          + "(?:(?:(?:,\\s*|\\s+)\\\\?\"([^\"\\\\\\s][^\"\\\\]{0,119})\\\\?\")|(?:,?\\s+([A-Z][a-z]+)\\b))?");
  private static final Pattern BOLD_LEAD = Pattern.compile("^\\s*(?:[-*]\\s+)?\\*\\*([^*]+)\\*\\*");
  private static final Pattern FOLD = Pattern.compile("\\s*\\R\\s*(?:\\*|//|#|--)?\\s*");
  private static final Pattern HISTORY_CITE = Pattern.compile("(?:docs/)?history/[A-Za-z0-9_.-]+\\.md|docs/history\\b");

  @Test
  void everyCitedHeadingExists() throws IOException {
    List<String> broken = new ArrayList<>();
    int checked = 0;
    for (Path file : files()) {
      String text = fold(read(file));
      Matcher m = CITATION.matcher(text);
      while (m.find()) {
        Path doc = DOCS.resolve(m.group(1));
        if (!Files.isRegularFile(doc)) {
          continue;
        }
        List<String> headings = headings(doc);
        String anchor = m.group(2) != null ? m.group(2) : m.group(3);
        String section = m.group(4);
        String quoted = m.group(5);
        String word = m.group(6);
        String problem = null;
        if (anchor != null) {
          checked++;
          if (headings.stream().map(DocsCitationsTest::anchor).noneMatch(anchor::equals)) {
            problem = "#" + anchor;
          }
        }
        if (quoted != null) {
          checked++;
          String q = normal(quoted);
          if (headings.stream().map(DocsCitationsTest::normal).noneMatch(h -> h.contains(q))) {
            problem = "\"" + quoted + "\"";
          }
        } else if (section != null) {
          checked++;
          if (headings.stream().noneMatch(h -> h.matches("(§\\s*)?" + section + "\\..*"))) {
            problem = "§" + section;
          }
        } else if (word != null && anchor == null) {
          checked++;
          String w = word.toLowerCase(Locale.ROOT);
          if (headings.stream().map(DocsCitationsTest::normal).noneMatch(h -> h.contains(w))) {
            problem = word;
          }
        }
        if (problem != null) {
          broken.add(file + ": " + m.group(1) + " " + problem);
        }
      }
    }
    assertThat(checked).as("citations found").isGreaterThan(20);
    assertThat(broken).as("citations of headings the doc does not have").isEmpty();
  }

  @Test
  void nothingCitesTheHistoryFolder() throws IOException {
    List<String> citing = new ArrayList<>();
    for (Path file : files()) {
      Matcher m = HISTORY_CITE.matcher(read(file));
      if (m.find()) {
        citing.add(file + ": " + m.group());
      }
    }
    assertThat(citing).as("files citing the history folder (its logs are kept, not cited)").isEmpty();
  }

  @Test
  void theFoldingAndPatternsFindWhatTheyShould() {
    String java = " * (docs/PERFORMANCE.md, \"Event loops and held\n *   reads at 1,000 streams\").";
    Matcher m = CITATION.matcher(fold(java));
    assertThat(m.find()).isTrue();
    assertThat(m.group(5)).isEqualTo("Event loops and held reads at 1,000 streams");
    m = CITATION.matcher("\"(docs/SIMULATOR.md, \\\"/metrics\\\").\"");
    assertThat(m.find()).isTrue();
    assertThat(m.group(5)).isEqualTo("/metrics");
    m = CITATION.matcher("see [docs/SIMULATOR.md](docs/SIMULATOR.md#virtual-time) and PERFORMANCE.md §8");
    assertThat(m.find()).isTrue();
    assertThat(m.group(2)).isEqualTo("virtual-time");
    assertThat(m.find()).isTrue();
    assertThat(m.group(4)).isEqualTo("8");
    assertThat(anchor("Virtual time: `tokenmeter simulate`, the capacity planner"))
        .isEqualTo("virtual-time-tokenmeter-simulate-the-capacity-planner");
    assertThat(HISTORY_CITE.matcher("see docs/" + "history/PERFORMANCE-log.md").find()).isTrue();
  }

  private static List<Path> files() throws IOException {
    List<Path> files = new ArrayList<>();
    for (Path root : ROOTS) {
      if (!Files.exists(root)) {
        continue;
      }
      try (Stream<Path> walk = Files.walk(root)) {
        walk.filter(Files::isRegularFile)
            .filter(p -> !p.startsWith(HISTORY))
            .filter(p -> !p.toString().contains("/target/") && !p.toString().contains("/node_modules/"))
            .filter(p -> !p.getFileName().toString().equals("DocsCitationsTest.java"))
            .filter(p -> TEXT.contains(extension(p)))
            .forEach(files::add);
      }
    }
    return files;
  }

  private static String extension(Path p) {
    String name = p.getFileName().toString();
    int dot = name.lastIndexOf('.');
    return dot < 0 ? "" : name.substring(dot + 1);
  }

  private static String read(Path file) throws IOException {
    try {
      return Files.readString(file, StandardCharsets.UTF_8);
    } catch (MalformedInputException e) {
      return "";
    }
  }

  private static String fold(String text) {
    return FOLD.matcher(text).replaceAll(" ");
  }

  /**
   * What a citation can name: the doc's Markdown headings, without their hashes, and the bold words
   * that open a paragraph or a list item ({@code **Headline latency: ...**}), the docs' run-in
   * headings.
   */
  static List<String> headings(Path doc) {
    try {
      List<String> names = new ArrayList<>();
      for (String line : Files.readAllLines(doc, StandardCharsets.UTF_8)) {
        Matcher lead = BOLD_LEAD.matcher(line);
        if (line.startsWith("#")) {
          names.add(line.replaceFirst("^#+\\s*", ""));
        } else if (lead.find()) {
          names.add(lead.group(1));
        }
      }
      return names;
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** Lower case, no backticks or quotes, one space between words. */
  static String normal(String s) {
    return s.toLowerCase(Locale.ROOT).replaceAll("[`*]", "").replaceAll("\\s+", " ").strip();
  }

  /** GitHub's anchor of a heading: lower case, punctuation dropped, spaces as hyphens. */
  static String anchor(String heading) {
    return heading.toLowerCase(Locale.ROOT).replaceAll("[^\\p{L}\\p{N} _-]", "").replace(' ', '-');
  }
}

package dev.tokenmeter.report.html;

import dev.tokenmeter.report.SavedSummary;
import dev.tokenmeter.report.SummaryJsonReader;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.time.Duration;
import java.time.format.DateTimeFormatter;
import java.util.List;
import java.util.Map;

/**
 * Renders {@code report.html}: one self-contained page (the chart library, styles, script and data
 * inlined; no network, works from file://) drawn from a results folder's {@code summary.json}
 * alone, so any folder can be re-rendered, partial and simulated runs included. At the top the
 * answer in plain words ({@link Headline}), then charts drawn by Chart.js from the page's {@code
 * tm-data} JSON ({@link PageData}), then tables that read without JavaScript ({@link Tables}).
 * Stateless and thread-safe.
 *
 * <pre>{@code
 * Path page = HtmlReport.write(Path.of("results/2026-01-01T00-00-00Z"));  // .../report.html
 * }</pre>
 */
public final class HtmlReport {
  /** The report's file name inside a results folder. */
  public static final String FILE_NAME = "report.html";

  private HtmlReport() {}

  /** Renders {@code dir/summary.json} into {@code dir/report.html}; returns the page's path. */
  public static Path write(Path dir) throws IOException {
    Path out = dir.resolve(FILE_NAME);
    write(dir, out);
    return out;
  }

  /**
   * Renders {@code dir/summary.json} into {@code out}, atomically (a temporary file moved over it).
   *
   * @throws NoSuchFileException when {@code dir} has no summary.json
   */
  public static void write(Path dir, Path out) throws IOException {
    SavedSummary summary = SummaryJsonReader.read(dir.resolve("summary.json"));
    Page.write(out, render(summary, Page.metricsDocHrefFor(out)));
  }

  /**
   * {@link #write(Path)} for the end of a run: a failure is one line on {@code err}, never thrown,
   * so a report problem cannot cost the run's results.
   */
  public static void writeQuietly(Path dir, PrintStream err) {
    try {
      write(dir);
    } catch (IOException | RuntimeException e) {
      err.println("tokenmeter: could not write " + dir.resolve(FILE_NAME) + ": " + e.getMessage()
          + " (re-render with: tokenmeter report " + dir + ")");
    }
  }

  /** Prints "Report: DIR/report.html" on {@code out} when the page exists (after {@link #writeQuietly}). */
  public static void printLocation(Path dir, PrintStream out) {
    Path page = dir.resolve(FILE_NAME);
    if (Files.isRegularFile(page)) {
      out.println("Report: " + page + " (open it in a browser; works offline)");
    }
  }

  /**
   * The page for {@code s}. {@code metricsDocHref} is the link to docs/METRICS.md for the
   * definitions (relative to the page), or null to name the file without a link.
   */
  public static String render(SavedSummary s, String metricsDocHref) throws IOException {
    Map<String, String> values = Map.ofEntries(
        Map.entry("title", Html.esc(title(s))),
        Map.entry("banner", Sections.banner(s)),
        Map.entry("headline", headline(s)),
        Map.entry("scale", Html.esc(Headline.scale())),
        Map.entry("stage_figures", Sections.stageFigures(s)),
        Map.entry("run", Sections.run(s)),
        Map.entry("tables", Tables.all(s, metricsDocHref)),
        Map.entry("nav_extra", navExtra(s)));
    return Page.render(title(s), Page.fill(Page.resource("report.html"), values), PageData.of(s), "report.js");
  }

  /**
   * {@code tokenmeter report: llama at http://host:8000}, without the model when none was named,
   * and {@code (failed)} when the run ended in an error with no request completed.
   */
  static String title(SavedSummary s) {
    return "tokenmeter report: " + (s.model() == null ? "" : s.model() + " at ") + s.targetUrl()
        + (s.simulated() ? " (simulated)" : "") + (Headline.failed(s) ? " (failed)" : "");
  }

  private static String headline(SavedSummary s) {
    List<String> sentences = Headline.sentences(s);
    StringBuilder b = new StringBuilder();
    for (int i = 0; i < sentences.size(); i++) {
      b.append(i == 0 ? "<p class=\"answer\" id=\"answer\">" : "<p class=\"knee\">")
          .append(Html.esc(sentences.get(i))).append("</p>\n");
    }
    String repeats = RepeatsCost.repeatsSentence(s);
    if (repeats != null) {
      b.append("<p class=\"knee\" id=\"repeats-answer\">").append(Html.esc(repeats)).append("</p>\n");
    }
    String cost = RepeatsCost.costSentence(s);
    if (cost != null) {
      b.append("<p class=\"knee\" id=\"cost-answer\">").append(Html.esc(cost)).append("</p>\n");
    }
    String bottleneck = Headline.bottleneck(s);
    if (bottleneck != null) {
      b.append("<p class=\"banner\" id=\"bottleneck\">").append(Html.esc(bottleneck)).append("</p>\n");
    }
    return b.toString();
  }

  /** Contents links to the repeats and cost sections, when the run has them. */
  private static String navExtra(SavedSummary s) {
    return (s.repeats() == null ? "" : " · <a href=\"#repeats\">Repeats</a>")
        + (s.pricing() == null ? "" : " · <a href=\"#cost\">Cost</a>");
  }

  static String duration(SavedSummary s) {
    Duration d = Duration.between(s.startedAt(), s.endedAt());
    return String.format(java.util.Locale.ROOT, "%.1f s", d.toMillis() / 1000.0);
  }

  static String instant(java.time.Instant t) {
    return DateTimeFormatter.ISO_INSTANT.format(t.truncatedTo(java.time.temporal.ChronoUnit.SECONDS));
  }
}

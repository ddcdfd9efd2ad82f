package dev.tokenmeter.report.html;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.HashMap;
import java.util.Map;
import java.util.Properties;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * What tokenmeter's self-contained pages (report.html, compare.html) share: the skeleton
 * ({@code page.html}: head, styles, the data blob, Chart.js and the scripts inlined, nothing loaded
 * from elsewhere), the chart helpers every page script uses ({@code charts.js}), templates with
 * {@code {{name}}} placeholders, the link to docs/METRICS.md and the atomic write. Stateless and
 * thread-safe.
 */
final class Page {
  private static final String RESOURCES = "/dev/tokenmeter/report/html/";
  private static final String CHARTJS_POM = "/META-INF/maven/org.webjars.npm/chart.js/pom.properties";
  private static final Pattern PLACEHOLDER = Pattern.compile("\\{\\{([a-z_]+)}}");
  private static final ObjectMapper MAPPER = new ObjectMapper();

  private Page() {}

  /**
   * A whole page: {@code body} (HTML, already filled) inside the skeleton, {@code data} as the
   * {@code tm-data} JSON the page script {@code script} (a resource name) draws its charts from.
   *
   * @param title plain text, escaped here
   */
  static String render(String title, String body, ObjectNode data, String script) throws IOException {
    Map<String, String> values = new HashMap<>();
    values.put("title", Html.esc(title));
    values.put("style", resource("report.css"));
    values.put("body", body);
    values.put("data", json(data));
    values.put("chartjs", ChartJs.SOURCE);
    values.put("chartjs_version", Html.esc(ChartJs.VERSION));
    values.put("charts", resource("charts.js"));
    values.put("script", resource(script));
    return fill(resource("page.html"), values);
  }

  /** Writes {@code page} to {@code out} atomically: a temporary file moved over it. */
  static void write(Path out, String page) throws IOException {
    Path tmp = out.resolveSibling(out.getFileName() + ".tmp");
    Files.writeString(tmp, page, StandardCharsets.UTF_8);
    Files.move(tmp, out, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
  }

  /** Replaces each {{name}} of the template in one pass, so inserted text is never rescanned. */
  static String fill(String template, Map<String, String> values) {
    Matcher m = PLACEHOLDER.matcher(template);
    StringBuilder b = new StringBuilder(template.length() + 300_000);
    while (m.find()) {
      String v = values.get(m.group(1));
      if (v == null) {
        throw new IllegalStateException("report template names unknown {{" + m.group(1) + "}}");
      }
      m.appendReplacement(b, Matcher.quoteReplacement(v));
    }
    m.appendTail(b);
    return b.toString();
  }

  /**
   * The path from {@code pageDir} to docs/METRICS.md of the checkout the folder lies in (results
   * land in {@code results/} of the project by default), or null when there is none above it.
   */
  static String metricsDocHref(Path pageDir) {
    for (Path p = pageDir; p != null; p = p.getParent()) {
      Path doc = p.resolve("docs").resolve("METRICS.md");
      if (Files.isRegularFile(doc)) {
        return pageDir.relativize(doc).toString().replace('\\', '/');
      }
    }
    return null;
  }

  /** {@link #metricsDocHref(Path)} for a page about to be written to {@code out}. */
  static String metricsDocHrefFor(Path out) {
    return metricsDocHref(out.toAbsolutePath().getParent());
  }

  static String resource(String name) throws IOException {
    try (InputStream in = Page.class.getResourceAsStream(RESOURCES + name)) {
      if (in == null) {
        throw new IOException("resource " + name + " missing from the tokenmeter jar");
      }
      return new String(in.readAllBytes(), StandardCharsets.UTF_8);
    }
  }

  /** The JSON text, safe inside a {@code <script>} element ({@code <} escaped as \u003c). */
  static String json(ObjectNode data) {
    try {
      return MAPPER.writeValueAsString(data).replace("<", "\\u003c");
    } catch (com.fasterxml.jackson.core.JsonProcessingException e) {
      throw new IllegalStateException(e);
    }
  }

  /** Chart.js, read once from its webjar on the class path (a runtime dependency). */
  static final class ChartJs {
    static final String VERSION;
    static final String SOURCE;

    static {
      try (InputStream pom = Page.class.getResourceAsStream(CHARTJS_POM)) {
        if (pom == null) {
          throw new IllegalStateException("the Chart.js webjar is missing from the class path");
        }
        Properties p = new Properties();
        p.load(pom);
        VERSION = p.getProperty("version");
        String path = "/META-INF/resources/webjars/chart.js/" + VERSION + "/dist/chart.umd.min.js";
        try (InputStream js = Page.class.getResourceAsStream(path)) {
          if (js == null) {
            throw new IllegalStateException(path + " is missing from the class path");
          }
          // The source-map comment would make a browser's devtools look for a file that is not there.
          SOURCE = new String(js.readAllBytes(), StandardCharsets.UTF_8)
              .replaceAll("//# sourceMappingURL=\\S*\\s*$", "")
              .replace("</script", "<\\/script");
        }
      } catch (IOException e) {
        throw new java.io.UncheckedIOException(e);
      }
    }

    private ChartJs() {}
  }
}

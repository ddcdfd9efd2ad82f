package dev.tokenmeter.run;

import com.fasterxml.jackson.core.JsonEncoding;
import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;
import dev.tokenmeter.client.EndpointConfig;
import dev.tokenmeter.core.Version;
import dev.tokenmeter.core.analysis.RunComparison;
import dev.tokenmeter.core.analysis.StageComparison;
import dev.tokenmeter.report.CompareReport;
import dev.tokenmeter.report.RunFolder;
import dev.tokenmeter.run.RunFailedException;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * The files of a {@code bench --variant} run beside the variants' own folders: {@code
 * variants.json} (the definitions, written before the run) and, after it, the comparison of the
 * first variant against the others as {@code tokenmeter compare DIR/a DIR/b ...} makes it ({@code
 * compare.md}, {@code compare.json}, {@code compare.html}, and the tables on the terminal).
 * Stateless.
 */
public final class VariantReport {
  public static final String DEFINITIONS = "variants.json";

  private VariantReport() {}

  /**
   * Writes {@code DIR/variants.json}: per variant its name, the {@code --variant} text, and what it
   * sends (URL, API, model, header names (not values: they may hold keys), the merged extra body,
   * the system prompt's size), plus the load share and seed. {@code systems} holds each variant's
   * {@code system} key as given ({@code @FILE} is named, inline text is not), null where none.
   */
  public static void writeDefinitions(Path outDir, List<BenchRun.Lane> lanes, List<String> systems, long seed) {
    Path file = outDir.resolve(DEFINITIONS);
    try {
      Files.createDirectories(outDir);
      try (JsonGenerator g = new JsonFactory().createGenerator(file.toFile(), JsonEncoding.UTF8)) {
        g.useDefaultPrettyPrinter();
        g.writeStartObject();
        g.writeStringField("tool_version", Version.VERSION);
        g.writeNumberField("seed", seed);
        g.writeStringField("load_share", "1/" + lanes.size()
            + " of --concurrency, --rate and --max-concurrency per variant; the same arrival offsets and prompts");
        g.writeArrayFieldStart("variants");
        for (int i = 0; i < lanes.size(); i++) {
          write(g, lanes.get(i), systems.get(i));
        }
        g.writeEndArray();
        g.writeEndObject();
      }
    } catch (IOException e) {
      throw new RunFailedException("cannot write " + file + ": " + e.getMessage() + ". Choose another folder with --out DIR.");
    }
  }

  private static void write(JsonGenerator g, BenchRun.Lane lane, String system) throws IOException {
    EndpointConfig e = lane.endpoint();
    Map<String, Object> w = lane.workload();
    g.writeStartObject();
    g.writeStringField("name", lane.name());
    g.writeStringField("folder", lane.name());
    g.writeStringField("url", e.baseUrl().toString());
    g.writeStringField("api", e.api().wireName());
    g.writeStringField("model", e.model());
    g.writeArrayFieldStart("header_names");
    for (String h : e.headers().keySet().stream().sorted().toList()) {
      g.writeString(h);
    }
    g.writeEndArray();
    g.writeStringField("extra_body", e.extraBodyJson());
    g.writeStringField("system_prompt", system == null ? null : system.startsWith("@") ? system : "(inline)");
    if (w.get("system_prompt_tokens") instanceof Integer tokens) {
      g.writeNumberField("system_prompt_tokens", tokens);
    }
    g.writeEndObject();
  }

  /**
   * Compares the first lane's folder with the others' (the defaults of {@code tokenmeter compare}),
   * prints the tables on {@code out} and writes {@code compare.md}, {@code compare.json} and {@code
   * compare.html} into {@code outDir}. A folder that cannot be read or a file that cannot be written
   * is reported on {@code err}: the variants' results are already saved and stay valid. {@code
   * settings} are {@code compare}'s defaults.
   */
  static void compareAndPrint(Path outDir, List<BenchRun.Lane> lanes, StageComparison.Settings settings,
      PrintStream out, PrintStream err) {
    List<RunFolder> runs = new ArrayList<>();
    try {
      for (BenchRun.Lane lane : lanes) {
        runs.add(RunFolder.read(lane.outDir()));
      }
    } catch (IOException | RuntimeException e) {
      err.println("tokenmeter: could not compare the variants: " + e.getMessage());
      return;
    }
    List<RunComparison> comparisons = CompareRun.compare(runs, settings);
    out.println();
    StringBuilder names = new StringBuilder();
    for (int i = 0; i < lanes.size(); i++) {
      names.append(i == 0 ? "" : ", ").append(CompareReport.name(i)).append(" = ").append(lanes.get(i).name());
    }
    out.println("Variants compared (" + names + "):");
    out.print(CompareReport.console(runs, comparisons, settings));
    Path md = outDir.resolve("compare.md");
    Path json = outDir.resolve("compare.json");
    Path html = outDir.resolve("compare.html");
    try {
      CompareRun.write(runs, comparisons, settings, md, json, html);
    } catch (RunFailedException e) {
      err.println("tokenmeter: could not write the comparison: " + e.getMessage());
      return;
    }
    out.println();
    out.println("Comparison: " + md + ", " + json + " and " + html + " (the same as tokenmeter compare "
        + String.join(" ", lanes.stream().map(l -> l.outDir().toString()).toList()) + ")");
  }
}

package dev.tokenmeter.report;

import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.tokenmeter.core.analysis.Metric;
import dev.tokenmeter.core.analysis.RunComparison;
import dev.tokenmeter.core.analysis.StageComparison;
import dev.tokenmeter.core.analysis.StageComparison.Row;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.format.DateTimeFormatter;
import java.util.List;
import org.HdrHistogram.Histogram;

/**
 * Writes {@code compare.json}: the comparison as data, for scripts and for an HTML page that
 * overlays the runs' curves. Layout (docs/RESULTS.md, "compare outputs"): {@code runs[]} (A the
 * baseline, B, ...), then {@code comparisons[]}, one per run against A, each with {@code stages[]}
 * holding every row's numbers and test, and {@code curves}: each run's per-second series (as in
 * summary.json), percentile curves and CDFs from its histograms. Numbers that do not exist are
 * null.
 * Stateless.
 */
public final class CompareJsonWriter {
  /** Version of this file's layout; minor versions add fields. */
  public static final String VERSION = "1.2";

  /** Percentiles of the {@code curves.*.percentiles} arrays. */
  static final double[] PERCENTILES = {1, 5, 10, 25, 50, 75, 90, 95, 99, 99.9, 100};

  private static final Metric[] CURVE_METRICS = {
    Metric.TTFT, Metric.TPOT, Metric.ITL, Metric.E2E, Metric.DECODE_TPS
  };
  /** Metrics of the {@code curves.*.cdf} objects (since 1.1). */
  private static final Metric[] CDF_METRICS = {Metric.TTFT, Metric.TPOT, Metric.ITL};
  private static final ObjectMapper MAPPER = new ObjectMapper();

  private CompareJsonWriter() {}

  /** Writes the comparison of {@code runs[1..]} to {@code runs[0]} to {@code file}. */
  public static void write(
      Path file, List<RunFolder> runs, List<RunComparison> comparisons, StageComparison.Settings s)
      throws IOException {
    try (OutputStream out = Files.newOutputStream(file)) {
      write(out, runs, comparisons, s);
    }
  }

  /**
   * compare.json as a tree: exactly what {@link #write(Path, List, List, StageComparison.Settings)}
   * writes (compare.html embeds it, so its charts show the file's numbers).
   */
  public static JsonNode tree(
      List<RunFolder> runs, List<RunComparison> comparisons, StageComparison.Settings s) {
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    try {
      write(bytes, runs, comparisons, s);
      return MAPPER.readTree(bytes.toByteArray());
    } catch (IOException e) {
      throw new java.io.UncheckedIOException(e); // in memory: cannot happen
    }
  }

  private static void write(
      OutputStream out, List<RunFolder> runs, List<RunComparison> comparisons, StageComparison.Settings s)
      throws IOException {
    try (JsonGenerator g = MAPPER.getFactory().createGenerator(out).useDefaultPrettyPrinter()) {
      g.writeStartObject();
      g.writeStringField("compare_version", VERSION);
      StageJsonWriter.number(g, "alpha", s.alpha());
      g.writeNumberField("bootstrap_resamples", s.resamples());
      g.writeNumberField("seed", s.seed());
      StageJsonWriter.number(g, "min_change_percent", s.minChangePercent());
      g.writeStringField("method", CompareReport.footnote(s));
      g.writeArrayFieldStart("runs");
      for (int i = 0; i < runs.size(); i++) {
        run(g, i, runs.get(i));
      }
      g.writeEndArray();
      g.writeArrayFieldStart("comparisons");
      for (int c = 0; c < comparisons.size(); c++) {
        comparison(g, CompareReport.name(c + 1), comparisons.get(c), runs.get(0), runs.get(c + 1), s);
      }
      g.writeEndArray();
      g.writeEndObject();
      g.writeRaw('\n');
    }
  }

  private static void run(JsonGenerator g, int i, RunFolder r) throws IOException {
    SavedSummary s = r.summary();
    g.writeStartObject();
    g.writeStringField("name", CompareReport.name(i));
    g.writeStringField("dir", r.dir().toString());
    g.writeStringField("target_url", s.targetUrl());
    g.writeStringField("model", s.model());
    g.writeStringField("started_at", DateTimeFormatter.ISO_INSTANT.format(s.startedAt()));
    g.writeBooleanField("partial", s.partial());
    g.writeBooleanField("has_requests", r.hasRequests());
    g.writeEndObject();
  }

  private static void comparison(
      JsonGenerator g, String name, RunComparison rc, RunFolder a, RunFolder b,
      StageComparison.Settings settings) throws IOException {
    g.writeStartObject();
    g.writeStringField("baseline", "A");
    g.writeStringField("run", name);
    g.writeBooleanField("same_plan", rc.samePlan());
    strings(g, "only_in_baseline", rc.onlyInA());
    strings(g, "only_in_run", rc.onlyInB());
    g.writeArrayFieldStart("stages");
    for (StageComparison s : rc.stages()) {
      g.writeStartObject();
      g.writeStringField("label", s.label());
      load(g, a, s.a().index());
      g.writeNumberField("baseline_index", s.a().index());
      g.writeNumberField("run_index", s.b().index());
      g.writeNumberField("baseline_requests", s.a().completed());
      g.writeNumberField("run_requests", s.b().completed());
      g.writeArrayFieldStart("rows");
      for (Row r : s.rows()) {
        row(g, r, name, settings);
      }
      g.writeEndArray();
      g.writeObjectFieldStart("curves");
      curves(g, "baseline", a, s.a().index());
      curves(g, "run", b, s.b().index());
      g.writeEndObject();
      g.writeEndObject();
    }
    g.writeEndArray();
    g.writeEndObject();
  }

  private static void row(JsonGenerator g, Row r, String name, StageComparison.Settings settings)
      throws IOException {
    StageComparison.Test t = r.test();
    g.writeStartObject();
    g.writeStringField("key", r.quantity().key());
    g.writeStringField("title", r.quantity().title());
    g.writeStringField("unit", r.quantity().unit());
    StageJsonWriter.number(g, "baseline", r.a());
    StageJsonWriter.number(g, "run", r.b());
    StageJsonWriter.number(g, "change", r.change());
    StageJsonWriter.number(g, "change_percent", r.changePercent());
    g.writeStringField("method", t.method().wireName());
    StageJsonWriter.number(g, "p_value", t.pValue());
    StageJsonWriter.number(g, "p_adjusted", t.pAdjusted());
    StageJsonWriter.number(g, "estimate", t.estimate());
    StageJsonWriter.number(g, "ci_low", t.ciLow());
    StageJsonWriter.number(g, "ci_high", t.ciHigh());
    StageJsonWriter.number(g, "common_language", t.commonLanguage());
    g.writeStringField("note", t.note());
    g.writeStringField("basis", t.basis());
    g.writeStringField("verdict", r.verdict().name().toLowerCase(java.util.Locale.ROOT));
    g.writeBooleanField("significant", r.verdict() == StageComparison.Verdict.BETTER
        || r.verdict() == StageComparison.Verdict.WORSE);
    g.writeStringField("summary", CompareReport.verdict(r, name, settings));
    g.writeEndObject();
  }

  private static void curves(JsonGenerator g, String field, RunFolder run, int index)
      throws IOException {
    SavedSummary.Stage stage = run.summary().stage(index);
    g.writeObjectFieldStart(field);
    g.writeFieldName("time_series");
    MAPPER.writeTree(g, run.timeSeries().get(run.summary().stages().indexOf(stage)));
    g.writeObjectFieldStart("percentiles");
    g.writeArrayFieldStart("percentile");
    for (double p : PERCENTILES) {
      g.writeNumber(p);
    }
    g.writeEndArray();
    for (Metric m : CURVE_METRICS) {
      Histogram h = stage.histograms().get(m);
      g.writeArrayFieldStart(m.reportKey());
      for (double p : PERCENTILES) {
        StageJsonWriter.number(g, h == null || h.getTotalCount() == 0 ? Double.NaN
            : h.getValueAtPercentile(p) / m.unit().perReportUnit());
      }
      g.writeEndArray();
    }
    g.writeEndObject();
    g.writeObjectFieldStart("cdf");
    for (Metric m : CDF_METRICS) {
      double[] values = Cdf.values(stage.histograms().get(m), m);
      g.writeArrayFieldStart(m.reportKey());
      for (int i = 0; i < values.length; i++) {
        g.writeStartArray();
        StageJsonWriter.number(g, values[i]);
        g.writeNumber(Cdf.fraction(i));
        g.writeEndArray();
      }
      g.writeEndArray();
    }
    g.writeEndObject();
    g.writeEndObject();
  }

  /** The matched stage's load, as the baseline planned it: {@code model}, {@code concurrency}, {@code rate_per_s}. */
  private static void load(JsonGenerator g, RunFolder a, int index) throws IOException {
    StageDetail d = a.summary().stage(index).detail();
    g.writeObjectFieldStart("load");
    g.writeStringField("model", d.loadModel());
    if (d.closed()) {
      g.writeNumberField("concurrency", d.concurrency());
    } else {
      g.writeNullField("concurrency");
    }
    StageJsonWriter.number(g, "rate_per_s", d.ratePerSecond());
    g.writeEndObject();
  }

  private static void strings(JsonGenerator g, String field, List<String> values) throws IOException {
    g.writeArrayFieldStart(field);
    for (String v : values) {
      g.writeString(v);
    }
    g.writeEndArray();
  }
}

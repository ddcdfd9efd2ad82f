package dev.tokenmeter.ledger;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;
import dev.tokenmeter.core.request.ErrorClass;
import java.io.IOException;
import java.io.StringWriter;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.stream.Collectors;

/**
 * {@code proxy usage} output: a terminal table, CSV or JSON. Pure functions of a {@link
 * UsageReport}: nothing here computes a figure. Times in ms and TPS to one decimal in the table,
 * three in CSV and JSON; a figure without values is {@code -} in the table, empty in CSV, null in
 * JSON.
 */
public final class UsageRender {
  private static final String NL = "\n";
  private static final JsonFactory JSON = new JsonFactory();
  private static final List<String> HEADER =
      List.of(
          "requests", "errors", "input_tokens", "output_tokens", "reasoning_tokens", "cached_tokens",
          "ttft_p50_ms", "ttft_p99_ms", "tpot_p50_ms", "tpot_p99_ms", "decode_tps_p50", "decode_tps_p10",
          "spend");

  private UsageRender() {}

  /** One line per group and a total; then the errors by class of the groups that had any. */
  public static String table(UsageReport report) {
    UsageQuery q = report.query();
    StringBuilder sb = new StringBuilder();
    sb.append("Usage since ").append(q.since()).append(q.tenantOrNull() == null ? "" : ", tenant " + q.tenantOrNull())
        .append(", by ").append(q.by().wireName()).append(NL);
    if (report.rows().isEmpty()) {
      return sb.append("No requests in this window.").append(NL).toString();
    }
    List<String[]> cells = new ArrayList<>();
    List<String> head = new ArrayList<>(List.of(q.by().wireName()));
    head.addAll(List.of("requests", "errors", "in tok", "out tok", "reasoning", "cached", "TTFT p50 ms",
        "TTFT p99 ms", "TPOT p50 ms", "TPOT p99 ms", "TPS/user p50", "TPS/user p10", "spend"));
    cells.add(head.toArray(String[]::new));
    for (UsageRow r : report.rows()) {
      cells.add(tableRow(r));
    }
    if (report.rows().size() > 1) {
      cells.add(tableRow(report.total()));
    }
    sb.append(aligned(cells));
    String cancelled = dev.tokenmeter.core.request.ErrorClass.CANCELLED.wireName();
    for (UsageRow r : report.rows()) {
      if (r.errors() > 0) {
        Map<String, Long> failed = new java.util.TreeMap<>(r.errorsByClass());
        failed.remove(cancelled);
        sb.append("errors, ").append(r.key()).append(": ").append(byClass(failed)).append(NL);
      }
      if (r.cancelled() > 0) {
        sb.append("cancelled by the client (not errors), ").append(r.key()).append(": ").append(r.cancelled()).append(NL);
      }
    }
    return sb.toString();
  }

  private static String[] tableRow(UsageRow r) {
    return new String[] {
      r.key(),
      Long.toString(r.requests()),
      Long.toString(r.errors()),
      Long.toString(r.inputTokens()),
      Long.toString(r.outputTokens()),
      Long.toString(r.reasoningTokens()),
      Long.toString(r.cachedTokens()),
      fixed(r.ttftMs().p50(), 1),
      fixed(r.ttftMs().p99(), 1),
      fixed(r.tpotMs().p50(), 1),
      fixed(r.tpotMs().p99(), 1),
      fixed(r.decodeTps().p50(), 1),
      fixed(r.decodeTps().p10(), 1),
      spend(r.spend(), " + ")
    };
  }

  private static String byClass(Map<String, Long> errors) {
    return errors.entrySet().stream().map(e -> e.getKey() + " " + e.getValue()).collect(Collectors.joining(", "));
  }

  private static String spend(Map<String, Double> spend, String separator) {
    if (spend.isEmpty()) {
      return "-";
    }
    return spend.entrySet().stream()
        .map(e -> String.format(Locale.ROOT, "%.4f", e.getValue()) + (e.getKey().isEmpty() ? "" : " " + e.getKey()))
        .collect(Collectors.joining(separator));
  }

  private static String fixed(double v, int decimals) {
    return Double.isNaN(v) ? "-" : String.format(Locale.ROOT, "%." + decimals + "f", v);
  }

  /** Columns padded to their widest cell: the first left-aligned, the others right-aligned. */
  private static String aligned(List<String[]> rows) {
    int[] width = new int[rows.get(0).length];
    for (String[] row : rows) {
      for (int c = 0; c < row.length; c++) {
        width[c] = Math.max(width[c], row[c].length());
      }
    }
    StringBuilder sb = new StringBuilder();
    for (String[] row : rows) {
      for (int c = 0; c < row.length; c++) {
        String fill = " ".repeat(width[c] - row[c].length());
        sb.append(c == 0 ? row[c] + fill : "  " + fill + row[c]);
      }
      sb.append(NL);
    }
    return sb.toString();
  }

  /**
   * A header and one line per group, then the total. Columns: the grouping's name, {@link #HEADER}
   * with {@code spend} as a number and {@code currency} beside it (several currencies joined by
   * {@code ;}), {@code unpriced_requests}, then one {@code errors_<class>} column per error class.
   */
  public static String csv(UsageReport report) {
    StringBuilder sb = new StringBuilder();
    List<String> head = new ArrayList<>(List.of(report.query().by().wireName()));
    head.addAll(HEADER);
    head.add("currency");
    head.add("unpriced_requests");
    for (ErrorClass c : ErrorClass.values()) {
      head.add("errors_" + c.wireName());
    }
    sb.append(String.join(",", head)).append(NL);
    List<UsageRow> rows = new ArrayList<>(report.rows());
    rows.add(report.total());
    for (UsageRow r : rows) {
      List<String> line = new ArrayList<>(List.of(csvText(r.key()), Long.toString(r.requests()),
          Long.toString(r.errors()), Long.toString(r.inputTokens()), Long.toString(r.outputTokens()),
          Long.toString(r.reasoningTokens()), Long.toString(r.cachedTokens()), csvNumber(r.ttftMs().p50()),
          csvNumber(r.ttftMs().p99()), csvNumber(r.tpotMs().p50()), csvNumber(r.tpotMs().p99()),
          csvNumber(r.decodeTps().p50()), csvNumber(r.decodeTps().p10())));
      line.add(r.spend().values().stream().map(v -> String.format(Locale.ROOT, "%.6f", v)).collect(Collectors.joining(";")));
      line.add(csvText(String.join(";", r.spend().keySet())));
      line.add(Long.toString(r.unpricedRequests()));
      for (ErrorClass c : ErrorClass.values()) {
        line.add(Long.toString(r.errorsByClass().getOrDefault(c.wireName(), 0L)));
      }
      sb.append(String.join(",", line)).append(NL);
    }
    return sb.toString();
  }

  private static String csvNumber(double v) {
    return Double.isNaN(v) ? "" : String.format(Locale.ROOT, "%.3f", v);
  }

  private static String csvText(String s) {
    boolean quote = s.contains(",") || s.contains("\"") || s.contains("\n");
    return quote ? "\"" + s.replace("\"", "\"\"") + "\"" : s;
  }

  /**
   * {@code {"since", "tenant", "by", "rows": [...], "total": {...}}}; each row has {@code key}, the
   * {@link #HEADER} figures (with {@code spend} an object by currency), {@code errors_by_class} and
   * {@code unpriced_requests}.
   */
  public static String json(UsageReport report) {
    StringWriter w = new StringWriter();
    try (JsonGenerator g = JSON.createGenerator(w)) {
      g.useDefaultPrettyPrinter();
      g.writeStartObject();
      g.writeStringField("since", report.query().since().toString());
      g.writeStringField("tenant", report.query().tenantOrNull());
      g.writeStringField("by", report.query().by().wireName());
      g.writeArrayFieldStart("rows");
      for (UsageRow r : report.rows()) {
        jsonRow(g, r);
      }
      g.writeEndArray();
      g.writeFieldName("total");
      jsonRow(g, report.total());
      g.writeEndObject();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return w + NL;
  }

  private static void jsonRow(JsonGenerator g, UsageRow r) throws IOException {
    g.writeStartObject();
    g.writeStringField("key", r.key());
    g.writeNumberField("requests", r.requests());
    g.writeNumberField("errors", r.errors());
    g.writeObjectFieldStart("errors_by_class");
    for (Map.Entry<String, Long> e : r.errorsByClass().entrySet()) {
      g.writeNumberField(e.getKey(), e.getValue());
    }
    g.writeEndObject();
    g.writeNumberField("input_tokens", r.inputTokens());
    g.writeNumberField("output_tokens", r.outputTokens());
    g.writeNumberField("reasoning_tokens", r.reasoningTokens());
    g.writeNumberField("cached_tokens", r.cachedTokens());
    jsonNumber(g, "ttft_p50_ms", r.ttftMs().p50());
    jsonNumber(g, "ttft_p99_ms", r.ttftMs().p99());
    jsonNumber(g, "tpot_p50_ms", r.tpotMs().p50());
    jsonNumber(g, "tpot_p99_ms", r.tpotMs().p99());
    jsonNumber(g, "decode_tps_p50", r.decodeTps().p50());
    jsonNumber(g, "decode_tps_p10", r.decodeTps().p10());
    g.writeObjectFieldStart("spend");
    for (Map.Entry<String, Double> e : r.spend().entrySet()) {
      g.writeNumberField(e.getKey(), e.getValue());
    }
    g.writeEndObject();
    g.writeNumberField("unpriced_requests", r.unpricedRequests());
    g.writeEndObject();
  }

  private static void jsonNumber(JsonGenerator g, String name, double v) throws IOException {
    if (Double.isNaN(v)) {
      g.writeNullField(name);
    } else {
      g.writeNumberField(name, Math.round(v * 1000) / 1000.0);
    }
  }
}

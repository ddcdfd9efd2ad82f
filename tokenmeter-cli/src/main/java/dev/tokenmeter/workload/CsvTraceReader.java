package dev.tokenmeter.workload;

import java.nio.file.Path;
import java.time.LocalDateTime;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.time.format.DateTimeFormatterBuilder;
import java.time.format.DateTimeParseException;
import java.time.temporal.ChronoField;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Reads the CSV trace formats, a header then one request a row: {@link TraceFormat#BURSTGPT}
 * ({@code Timestamp} in seconds, {@code Request tokens}, {@code Response tokens}, and {@code
 * Session ID} when the release has it) and {@link TraceFormat#AZURE} ({@code TIMESTAMP} an absolute
 * date-time, {@code ContextTokens}, {@code GeneratedTokens}). Owns the header's column positions
 * and the CSV field splitter. Rows asking 0 tokens are the failures the publishers left in: counted
 * as skipped, still checked for arrival order. Neither format names prompt blocks, so records carry
 * no hash ids. Column layouts and sources: {@link TraceFormat}.
 */
final class CsvTraceReader extends TraceReader {
  private static final DateTimeFormatter AZURE_TIME = new DateTimeFormatterBuilder()
      .appendPattern("yyyy-MM-dd HH:mm:ss")
      .optionalStart().appendFraction(ChronoField.NANO_OF_SECOND, 0, 9, true).optionalEnd()
      .toFormatter();

  private Map<String, Integer> columns;

  CsvTraceReader(Path file, TraceFormat format, int blockTokens) {
    super(file, format, blockTokens);
  }

  @Override
  void read(List<String> lines, int first) {
    header(lines.get(first), first + 1);
    for (int i = first + 1; i < lines.size(); i++) {
      if (!lines.get(i).isBlank()) {
        csv(lines.get(i), i + 1);
      }
    }
  }

  private void header(String text, long line) {
    List<String> names = split(text);
    columns = new HashMap<>();
    for (int i = 0; i < names.size(); i++) {
      columns.put(names.get(i).strip(), i);
    }
    List<String> need = format == TraceFormat.AZURE
        ? List.of("TIMESTAMP", "ContextTokens", "GeneratedTokens")
        : List.of("Timestamp", "Request tokens", "Response tokens");
    for (String c : need) {
      if (!columns.containsKey(c)) {
        throw bad(line, "the " + format.label() + " header has no column \"" + c + "\" (it has " + names
            + "): give the file as published, or the right --trace-format");
      }
    }
  }

  private void csv(String text, long line) {
    List<String> cells = split(text);
    boolean azure = format == TraceFormat.AZURE;
    String time = cell(cells, azure ? "TIMESTAMP" : "Timestamp", line);
    String inCol = azure ? "ContextTokens" : "Request tokens";
    String outCol = azure ? "GeneratedTokens" : "Response tokens";
    int in = count(cell(cells, inCol, line), inCol, line);
    int out = count(cell(cells, outCol, line), outCol, line);
    long nanos = azure ? azureNanos(time, line) : burstNanos(time, line);
    if (in == 0 || out == 0) {
      skipped++; // a failed request in the published trace: nothing to replay
      checkOrder(nanos, line);
      return;
    }
    String session = null;
    if (!azure && columns.containsKey("Session ID")) {
      String s = cells.size() > columns.get("Session ID") ? cells.get(columns.get("Session ID")).strip() : "";
      session = s.isEmpty() ? null : s;
    }
    add(nanos, in, out, new long[0], session, 0, line);
  }

  private String cell(List<String> cells, String column, long line) {
    int i = columns.get(column);
    if (i >= cells.size()) {
      throw bad(line, "no value for \"" + column + "\": " + cells.size() + " fields, the header has " + columns.size());
    }
    return cells.get(i).strip();
  }

  private int count(String v, String column, long line) {
    try {
      int n = Integer.parseInt(v);
      if (n < 0) {
        throw new NumberFormatException();
      }
      return n;
    } catch (NumberFormatException e) {
      throw bad(line, "\"" + column + "\" must be a whole number of tokens >= 0, got '" + v + "'");
    }
  }

  private long burstNanos(String v, long line) {
    try {
      double seconds = Double.parseDouble(v);
      if (!(seconds >= 0) || Double.isInfinite(seconds)) {
        throw new NumberFormatException();
      }
      return Math.round(seconds * 1e9);
    } catch (NumberFormatException e) {
      throw bad(line, "\"Timestamp\" must be seconds >= 0, got '" + v + "'");
    }
  }

  private long azureNanos(String v, long line) {
    try {
      LocalDateTime t = LocalDateTime.parse(v, AZURE_TIME);
      return epochNanos(t.toEpochSecond(ZoneOffset.UTC), t.getNano());
    } catch (DateTimeParseException e) {
      try {
        OffsetDateTime t = OffsetDateTime.parse(v.replace(' ', 'T'));
        return epochNanos(t.toEpochSecond(), t.getNano());
      } catch (DateTimeParseException e2) {
        throw bad(line, "\"TIMESTAMP\" must be a date-time such as 2023-11-16 18:15:46.6805900, got '" + v + "'");
      }
    }
  }

  private static long epochNanos(long seconds, int nanos) {
    return Math.addExact(Math.multiplyExact(seconds, 1_000_000_000L), nanos);
  }

  /** Fields of a CSV line; double-quoted fields may hold commas and doubled quotes. */
  static List<String> split(String line) {
    List<String> out = new ArrayList<>();
    StringBuilder cur = new StringBuilder();
    boolean quoted = false;
    for (int i = 0; i < line.length(); i++) {
      char c = line.charAt(i);
      if (quoted) {
        if (c == '"' && i + 1 < line.length() && line.charAt(i + 1) == '"') {
          cur.append('"');
          i++;
        } else if (c == '"') {
          quoted = false;
        } else {
          cur.append(c);
        }
      } else if (c == '"') {
        quoted = true;
      } else if (c == ',') {
        out.add(cur.toString());
        cur.setLength(0);
      } else {
        cur.append(c);
      }
    }
    out.add(cur.toString());
    return out;
  }
}

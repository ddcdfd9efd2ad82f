package dev.tokenmeter.workload;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.BufferedReader;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
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
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.SplittableRandom;

/**
 * A request trace: when each request arrived, how long its prompt and answer were, and which
 * prompt blocks it shared with others. Read from one of the {@link TraceFormat}s; immutable, so
 * {@link #window}, {@link #speed} and {@link #scale} return new traces. Arrival times are
 * nanoseconds from the first record (which is at 0), non-decreasing.
 *
 * <pre>{@code
 * Trace t = Trace.read(Path.of("mooncake_trace.jsonl"), null, 512).window(0, 600_000_000_000L);
 * }</pre>
 */
public final class Trace {

  /**
   * One request of a trace.
   *
   * @param atNanos arrival, nanoseconds after the trace's first record
   * @param inputTokens prompt tokens, at least 1
   * @param outputTokens tokens generated, at least 1
   * @param hashIds the prompt's blocks in order, one id per block of the trace's block size (equal
   *     ids, equal tokens), empty when the trace names none (the prompt then shares nothing)
   * @param session the conversation it belongs to, null when the trace has none
   * @param turn its turn in the session (1 first), 0 when unknown
   * @param line the line of the file it was read from (1-based), for messages
   */
  public record Record(
      long atNanos, int inputTokens, int outputTokens, long[] hashIds, String session, int turn, long line) {
    public Record {
      Objects.requireNonNull(hashIds, "hashIds");
    }

    Record at(long nanos) {
      return new Record(nanos, inputTokens, outputTokens, hashIds, session, turn, line);
    }
  }

  private static final ObjectMapper JSON = new ObjectMapper();
  private static final long NANOS_PER_MILLI = 1_000_000L;
  private static final DateTimeFormatter AZURE_TIME = new DateTimeFormatterBuilder()
      .appendPattern("yyyy-MM-dd HH:mm:ss")
      .optionalStart().appendFraction(ChronoField.NANO_OF_SECOND, 0, 9, true).optionalEnd()
      .toFormatter();

  private final Path source;
  private final TraceFormat format;
  private final int blockTokens;
  private final List<Record> records;
  private final long skipped;

  private Trace(Path source, TraceFormat format, int blockTokens, List<Record> records, long skipped) {
    this.source = source;
    this.format = format;
    this.blockTokens = blockTokens;
    this.records = List.copyOf(records);
    this.skipped = skipped;
  }

  /** A trace of {@code records} (arrivals non-decreasing), for tests and for traces built in memory. */
  public static Trace of(TraceFormat format, int blockTokens, List<Record> records) {
    return new Trace(Path.of("(memory)"), format, blockTokens, records, 0);
  }

  /**
   * Reads {@code file} in {@code format}, or in the format its first line shows when null. Every
   * problem is a {@link WorkloadException} naming the file, line and field: an unknown format, an
   * empty trace, a missing or non-positive length, timestamps out of order, more hash ids than
   * {@code blockTokens}-token blocks in the prompt.
   *
   * @param blockTokens tokens per block of the hash ids, or 0 for the format's own ({@link
   *     TraceFormat#defaultBlockTokens}; a tokenmeter trace's {@code block_tokens} when it has one)
   */
  public static Trace read(Path file, TraceFormat format, int blockTokens) {
    if (blockTokens < 0) {
      throw new WorkloadException("--trace-block-tokens must be at least 1, got " + blockTokens);
    }
    List<String> lines;
    try {
      lines = Files.readAllLines(file, StandardCharsets.UTF_8);
    } catch (NoSuchFileException e) {
      throw new WorkloadException("--trace " + file + ": no such file");
    } catch (java.nio.charset.CharacterCodingException e) {
      throw new WorkloadException(file + ": not UTF-8 text, so not a trace format tokenmeter reads (Mooncake,"
          + " Bailian or tokenmeter JSONL, BurstGPT or Azure CSV; docs/TRACES.md)");
    } catch (IOException e) {
      throw new WorkloadException("--trace " + file + ": cannot read it (" + e.getMessage() + ")");
    }
    int first = 0;
    while (first < lines.size() && lines.get(first).isBlank()) {
      first++;
    }
    if (first == lines.size()) {
      throw new WorkloadException(file + ": the trace is empty: give a file with one request per line");
    }
    TraceFormat f = format != null ? format : TraceFormat.detect(lines.get(first));
    if (f == null) {
      throw new WorkloadException(file + ":" + (first + 1) + ": not a trace format tokenmeter reads (Mooncake,"
          + " Bailian or tokenmeter JSONL, BurstGPT or Azure CSV with their header): give --trace-format or convert it (docs/TRACES.md)");
    }
    Reader reader = new Reader(file, f, blockTokens);
    switch (f) {
      case MOONCAKE, TOKENMETER, BAILIAN -> {
        for (int i = first; i < lines.size(); i++) {
          if (!lines.get(i).isBlank()) {
            reader.json(lines.get(i), i + 1);
          }
        }
      }
      case BURSTGPT, AZURE -> {
        reader.header(lines.get(first), first + 1);
        for (int i = first + 1; i < lines.size(); i++) {
          if (!lines.get(i).isBlank()) {
            reader.csv(lines.get(i), i + 1);
          }
        }
      }
    }
    if (reader.records.isEmpty()) {
      throw new WorkloadException(file + ": the trace has no request to send (" + reader.skipped
          + " rows with 0 tokens skipped)");
    }
    return new Trace(file, f, reader.blockTokens(), reader.normalised(), reader.skipped);
  }

  /** Parses one file's lines into records, remembering where it is for messages. */
  private static final class Reader {
    private final Path file;
    private final TraceFormat format;
    /** Tokens per block the caller named, 0 for the format's own. */
    private final int givenBlockTokens;
    /** A tokenmeter trace's own block_tokens, 0 until a record names it. */
    private int fileBlockTokens;
    private long fileBlockLine;
    private final List<Record> records = new ArrayList<>();
    /** Bailian: each chat id's session (its root chat's id). */
    private final Map<Long, String> sessionOfChat = new HashMap<>();
    private long skipped;
    private long lastRawNanos = Long.MIN_VALUE;
    private long lastLine;
    private Map<String, Integer> columns;

    Reader(Path file, TraceFormat format, int blockTokens) {
      this.file = file;
      this.format = format;
      this.givenBlockTokens = blockTokens;
    }

    /** Tokens per block of the hash ids: given, else the file's own, else the format's. */
    int blockTokens() {
      if (givenBlockTokens > 0) {
        return givenBlockTokens;
      }
      return fileBlockTokens > 0 ? fileBlockTokens : format.defaultBlockTokens();
    }

    private WorkloadException bad(long line, String what) {
      return new WorkloadException(file + ":" + line + ": " + what);
    }

    void json(String text, long line) {
      JsonNode n;
      try {
        n = JSON.readTree(text);
      } catch (JsonProcessingException e) {
        throw bad(line, "not a JSON object (" + e.getOriginalMessage() + "): one request per line");
      }
      if (n == null || !n.isObject()) {
        throw bad(line, "not a JSON object: one request per line");
      }
      boolean ours = format == TraceFormat.TOKENMETER;
      boolean bailian = format == TraceFormat.BAILIAN;
      String timeField = ours ? "at_ms" : "timestamp";
      JsonNode t = n.get(timeField);
      if (t == null || !t.isNumber() || !(t.asDouble() >= 0)) {
        throw bad(line, "\"" + timeField + "\" must be a number of " + (bailian ? "seconds" : "milliseconds")
            + " >= 0, got " + t);
      }
      int in = length(n, ours ? "input_tokens" : "input_length", line);
      int out = length(n, ours ? "output_tokens" : "output_length", line);
      if (ours) {
        fileBlockTokens(n.get("block_tokens"), line);
      }
      long[] ids = hashIds(n.get("hash_ids"), in, line);
      String session = null;
      int turn = 0;
      if (bailian) {
        session = bailianSession(n, line);
        turn = turn(n.get("turn"), line);
        add(Math.round(t.asDouble() * 1e9), in, out, ids, session, turn, line);
        return;
      }
      if (ours) {
        JsonNode s = n.get("session");
        session = s == null || s.isNull() ? null : s.asText();
        turn = turn(n.get("turn"), line);
      }
      add(Math.round(t.asDouble() * NANOS_PER_MILLI), in, out, ids, session, turn, line);
    }

    private int turn(JsonNode tn, long line) {
      if (tn == null || tn.isNull()) {
        return 0;
      }
      if (!tn.canConvertToInt() || tn.asInt() < 1) {
        throw bad(line, "\"turn\" must be a whole number >= 1, got " + tn);
      }
      return tn.asInt();
    }

    /** A tokenmeter record's block_tokens: the same on every record that has one. */
    private void fileBlockTokens(JsonNode v, long line) {
      if (v == null || v.isNull()) {
        return;
      }
      if (!v.isIntegralNumber() || !v.canConvertToInt() || v.asInt() < 1) {
        throw bad(line, "\"block_tokens\" must be a whole number >= 1, got " + v);
      }
      int b = v.asInt();
      if (fileBlockTokens == 0) {
        if (givenBlockTokens > 0 && givenBlockTokens != b) {
          throw bad(line, "the trace's blocks are " + b + " tokens (\"block_tokens\") but --trace-block-tokens says "
              + givenBlockTokens + ": drop --trace-block-tokens");
        }
        fileBlockTokens = b;
        fileBlockLine = line;
      } else if (b != fileBlockTokens) {
        throw bad(line, "\"block_tokens\" is " + b + " here but " + fileBlockTokens + " on line " + fileBlockLine
            + ": one trace has one block size");
      }
    }

    /**
     * A Bailian record's session: the chat id of its conversation's root (parent_chat_id -1), found
     * through the parents read before it; a parent not in the file is taken as the root.
     */
    private String bailianSession(JsonNode n, long line) {
      JsonNode chat = n.get("chat_id");
      JsonNode parent = n.get("parent_chat_id");
      if (chat == null || !chat.isIntegralNumber()) {
        throw bad(line, "\"chat_id\" must be a whole number, got " + chat);
      }
      long parentId = parent == null || parent.isNull() ? -1 : parent.asLong(-1);
      String session = parentId < 0 ? "chat-" + chat.asLong()
          : sessionOfChat.getOrDefault(parentId, "chat-" + parentId);
      sessionOfChat.put(chat.asLong(), session);
      return session;
    }

    private int length(JsonNode n, String field, long line) {
      JsonNode v = n.get(field);
      if (v == null || !v.canConvertToInt() || v.asInt() < 1 || !v.isIntegralNumber()) {
        throw bad(line, "\"" + field + "\" must be a whole number of tokens >= 1, got " + v);
      }
      return v.asInt();
    }

    private long[] hashIds(JsonNode v, int inputTokens, long line) {
      if (v == null || v.isNull()) {
        return new long[0];
      }
      if (!v.isArray()) {
        throw bad(line, "\"hash_ids\" must be an array of whole numbers, got " + v);
      }
      long[] ids = new long[v.size()];
      for (int i = 0; i < ids.length; i++) {
        JsonNode id = v.get(i);
        if (!id.isIntegralNumber() || !id.canConvertToLong()) {
          throw bad(line, "\"hash_ids\" item " + i + " must be a whole number, got " + id);
        }
        ids[i] = id.asLong();
      }
      int blockTokens = blockTokens();
      long blocks = (inputTokens + (long) blockTokens - 1) / blockTokens;
      if (ids.length > blocks) {
        throw bad(line, "\"hash_ids\" names " + ids.length + " blocks of " + blockTokens + " tokens but the prompt is "
            + inputTokens + " tokens (" + blocks + " blocks at most): fix the record, or give the trace's block size"
            + " with --trace-block-tokens");
      }
      return ids;
    }

    void header(String text, long line) {
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

    void csv(String text, long line) {
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

    private void checkOrder(long nanos, long line) {
      if (nanos < lastRawNanos) {
        throw bad(line, "timestamp goes back in time (line " + lastLine + " was later): sort the trace by arrival"
            + " time first");
      }
      lastRawNanos = nanos;
      lastLine = line;
    }

    private void add(long nanos, int in, int out, long[] ids, String session, int turn, long line) {
      checkOrder(nanos, line);
      records.add(new Record(nanos, in, out, ids, session, turn, line));
    }

    /** The records with the first one at 0. */
    List<Record> normalised() {
      long zero = records.get(0).atNanos();
      List<Record> out = new ArrayList<>(records.size());
      for (Record r : records) {
        out.add(r.at(r.atNanos() - zero));
      }
      return out;
    }
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

  /** The records, in arrival order. */
  public List<Record> records() {
    return records;
  }

  public TraceFormat format() {
    return format;
  }

  public Path source() {
    return source;
  }

  /** Tokens per block of the trace's hash ids. */
  public int blockTokens() {
    return blockTokens;
  }

  /** Rows of the file left out because they asked for 0 tokens (failed requests in the published trace). */
  public long skipped() {
    return skipped;
  }

  /** Nanoseconds from the first to the last arrival. */
  public long spanNanos() {
    return records.isEmpty() ? 0 : records.get(records.size() - 1).atNanos() - records.get(0).atNanos();
  }

  /** Whether any record names its session. */
  public boolean hasSessions() {
    return records.stream().anyMatch(r -> r.session() != null);
  }

  /**
   * The records that arrived in {@code [fromNanos, toNanos)}, moved so that {@code fromNanos} is 0
   * (the first kept record may then arrive after 0: a window keeps its own quiet start).
   */
  public Trace window(long fromNanos, long toNanos) {
    List<Record> kept = new ArrayList<>();
    for (Record r : records) {
      if (r.atNanos() >= fromNanos && r.atNanos() < toNanos) {
        kept.add(r.at(r.atNanos() - fromNanos));
      }
    }
    return new Trace(source, format, blockTokens, kept, skipped);
  }

  /** The trace played {@code factor} times faster: arrival times divided by it. */
  public Trace speed(double factor) {
    if (!(factor > 0) || Double.isInfinite(factor)) {
      throw new WorkloadException("--trace-speed must be a positive number, got " + factor);
    }
    List<Record> out = new ArrayList<>(records.size());
    for (Record r : records) {
      out.add(r.at(Math.round(r.atNanos() / factor)));
    }
    return new Trace(source, format, blockTokens, out, skipped);
  }

  /**
   * A seeded share of the trace: each session kept with probability {@code share} (all its turns
   * or none), or each record when the trace has no sessions. Arrival times are unchanged.
   */
  public Trace scale(double share, long seed) {
    if (!(share > 0) || share > 1) {
      throw new WorkloadException("--trace-scale must be a share in (0, 1], got " + share);
    }
    if (share == 1) {
      return this;
    }
    List<Record> out = new ArrayList<>();
    for (int i = 0; i < records.size(); i++) {
      Record r = records.get(i);
      long key = r.session() != null ? r.session().hashCode() * 0x9E3779B97F4A7C15L + r.session().length() : i;
      if (new SplittableRandom(Draws.mix(seed, SCALE_STREAM, key)).nextDouble() < share) {
        out.add(r);
      }
    }
    if (out.isEmpty()) {
      throw new WorkloadException("--trace-scale " + share + " keeps no request of the " + records.size()
          + " in the trace: raise it");
    }
    return new Trace(source, format, blockTokens, out, skipped);
  }

  private static final long SCALE_STREAM = 7;

  /** Arrival offsets in nanoseconds, in order. */
  public long[] offsetsNanos() {
    return records.stream().mapToLong(Record::atNanos).toArray();
  }

  /** Distinct hash ids, and how many block references the records make: the trace's implied reuse. */
  public long[] blockReuse() {
    LinkedHashSet<Long> distinct = new LinkedHashSet<>();
    long refs = 0;
    for (Record r : records) {
      for (long id : r.hashIds()) {
        distinct.add(id);
        refs++;
      }
    }
    return new long[] {distinct.size(), refs};
  }

  /** One line for the terminal: {@code "mooncake trace t.jsonl: 1,200 requests over 3600.0 s"}. */
  public String describe() {
    return String.format(java.util.Locale.ROOT, "%s trace %s: %d requests over %.1f s%s", format.label(),
        source.getFileName(), records.size(), spanNanos() / 1e9,
        skipped == 0 ? "" : " (" + skipped + " rows with 0 tokens skipped)");
  }
}

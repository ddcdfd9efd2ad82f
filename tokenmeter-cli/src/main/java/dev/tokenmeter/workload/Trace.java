package dev.tokenmeter.workload;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
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
   * {@code blockTokens}-token blocks in the prompt. Each format family has its reader ({@code
   * JsonTraceReader}, {@code CsvTraceReader}); the file-level checks and detection are here.
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
    TraceReader reader = switch (f) {
      case MOONCAKE, TOKENMETER, BAILIAN -> new JsonTraceReader(file, f, blockTokens);
      case BURSTGPT, AZURE -> new CsvTraceReader(file, f, blockTokens);
    };
    reader.read(lines, first);
    if (reader.records.isEmpty()) {
      throw new WorkloadException(file + ": the trace has no request to send (" + reader.skipped
          + " rows with 0 tokens skipped)");
    }
    return new Trace(file, f, reader.blockTokens(), reader.normalised(), reader.skipped);
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

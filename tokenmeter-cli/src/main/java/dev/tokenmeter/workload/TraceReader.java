package dev.tokenmeter.workload;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * Parses one trace file's lines into {@link Trace.Record}s, remembering where it is for messages.
 * Owns what every format shares: the file and format named in each error ({@code file:line: what}),
 * the records read so far, the arrival-order check over every row (rows skipped included), the
 * count of rows skipped for asking 0 tokens, and the block size the caller gave. Each format family
 * reads its own fields: {@link JsonTraceReader} (Mooncake, Bailian, tokenmeter JSONL) and {@link
 * CsvTraceReader} (BurstGPT, Azure CSV). One file, one reader, one thread; {@link Trace#read} is the
 * only caller.
 */
abstract sealed class TraceReader permits JsonTraceReader, CsvTraceReader {
  final Path file;
  final TraceFormat format;
  /** Tokens per block the caller named, 0 for the format's own. */
  final int givenBlockTokens;
  final List<Trace.Record> records = new ArrayList<>();
  long skipped;
  private long lastRawNanos = Long.MIN_VALUE;
  private long lastLine;

  TraceReader(Path file, TraceFormat format, int blockTokens) {
    this.file = file;
    this.format = format;
    this.givenBlockTokens = blockTokens;
  }

  /**
   * Reads the file's {@code lines} from index {@code first}, its first non-blank line, to the end;
   * blank lines are skipped, line numbers in messages are 1-based.
   */
  abstract void read(List<String> lines, int first);

  /** Tokens per block of the hash ids: given, else the format's. */
  int blockTokens() {
    return givenBlockTokens > 0 ? givenBlockTokens : format.defaultBlockTokens();
  }

  final WorkloadException bad(long line, String what) {
    return new WorkloadException(file + ":" + line + ": " + what);
  }

  final void checkOrder(long nanos, long line) {
    if (nanos < lastRawNanos) {
      throw bad(line, "timestamp goes back in time (line " + lastLine + " was later): sort the trace by arrival"
          + " time first");
    }
    lastRawNanos = nanos;
    lastLine = line;
  }

  final void add(long nanos, int in, int out, long[] ids, String session, int turn, long line) {
    checkOrder(nanos, line);
    records.add(new Trace.Record(nanos, in, out, ids, session, turn, line));
  }

  /** The records with the first one at 0. */
  final List<Trace.Record> normalised() {
    long zero = records.get(0).atNanos();
    List<Trace.Record> out = new ArrayList<>(records.size());
    for (Trace.Record r : records) {
      out.add(r.at(r.atNanos() - zero));
    }
    return out;
  }
}

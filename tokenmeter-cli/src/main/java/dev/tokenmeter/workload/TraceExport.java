package dev.tokenmeter.workload;

import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.io.Writer;
import java.util.HashMap;
import java.util.Map;

/**
 * Metered requests as a trace in tokenmeter's own format ({@link TraceFormat#TOKENMETER}), what
 * {@code proxy export-trace} writes and {@code bench --trace} replays: arrival, input and output
 * tokens, prompt blocks, session and turn. Two passes over the same rows: {@link #measure} each,
 * then {@link #writer} and {@link Writer#add} each. Confined to one thread.
 *
 * <pre>
 * design notes
 * - Blocks: the proxy hashes its prompts' text in blocks of a fixed number of characters; a trace's
 *   blocks are tokens. The characters per token of the window (the sum of the prompts' hashed
 *   characters over the sum of their input tokens, as the server counted them) turn the one into
 *   the other: block_tokens = round(block_chars / (chars per token)), written on every record.
 *   A record keeps at most ceil(input / block_tokens) of its hashes (the reader's rule).
 * - Rows hashed with another block size than most of the window's (a setting changed) keep no
 *   hashes: their blocks cannot be compared with the others'.
 * - Anonymised as Alibaba's Bailian traces are: each hash becomes a small integer in order of first
 *   appearance (equal hashes, equal ids), each conversation key "s" and its order of appearance;
 *   times are milliseconds after the first exported request.
 * - Left out, and counted: failed requests (no lengths to replay), and completed ones with no
 *   input or output count.
 * </pre>
 */
public final class TraceExport {
  private static final ObjectMapper JSON = new ObjectMapper();

  private long chars;
  private long tokens;
  private final Map<Integer, Long> rowsByBlockChars = new HashMap<>();

  /** Pass 1: one completed request's prompt tokens and, when it was hashed, its hashed characters and block size. */
  public void measure(int inputTokens, int promptChars, int blockChars) {
    if (inputTokens >= 1 && promptChars > 0 && blockChars > 0) {
      chars += promptChars;
      tokens += inputTokens;
      rowsByBlockChars.merge(blockChars, 1L, Long::sum);
    }
  }

  /** The block size most measured rows were hashed with, or 0 when none was hashed. */
  public int blockChars() {
    return rowsByBlockChars.entrySet().stream().max(Map.Entry.<Integer, Long>comparingByValue()
        .thenComparing(Map.Entry.comparingByKey())).map(Map.Entry::getKey).orElse(0);
  }

  /** Characters of hashed prompt text per input token over the measured rows, or NaN when none was hashed. */
  public double charsPerToken() {
    return tokens == 0 ? Double.NaN : (double) chars / tokens;
  }

  /** Tokens per block of the exported hash ids (at least 1), or 0 when no row was hashed. */
  public int blockTokens() {
    int c = blockChars();
    return c == 0 ? 0 : (int) Math.max(1, Math.round(c / charsPerToken()));
  }

  /** Pass 2: a writer of records to {@code out}, with the block size pass 1 found. */
  public Writer writer(java.io.Writer out) {
    return new Writer(out, blockChars(), blockTokens());
  }

  /** Writes one JSON line per exported request. */
  public static final class Writer {
    private final java.io.Writer out;
    private final int blockChars;
    private final int blockTokens;
    private final Map<Long, Long> ids = new HashMap<>();
    private final Map<String, String> sessions = new HashMap<>();
    private final Map<String, Integer> turns = new HashMap<>();
    private long firstMillis = Long.MIN_VALUE;
    private long written;
    private long failed;
    private long unknownLengths;
    private long references;

    Writer(java.io.Writer out, int blockChars, int blockTokens) {
      this.out = out;
      this.blockChars = blockChars;
      this.blockTokens = blockTokens;
    }

    /**
     * One request, in start order.
     *
     * @param startedAtEpochMillis when the proxy received it
     * @param ok whether it completed
     * @param inputTokens its prompt tokens, or -1
     * @param outputTokens its output tokens, or -1
     * @param conversation its conversation key, or null
     * @param hashesOrNull its prompt's block hashes, or null when it was not hashed
     * @param hashBlockChars the block size those were hashed with
     */
    public void add(long startedAtEpochMillis, boolean ok, int inputTokens, int outputTokens, String conversation,
        long[] hashesOrNull, int hashBlockChars) {
      if (!ok) {
        failed++;
        return;
      }
      if (inputTokens < 1 || outputTokens < 1) {
        unknownLengths++;
        return;
      }
      if (firstMillis == Long.MIN_VALUE) {
        firstMillis = startedAtEpochMillis;
      }
      try (JsonGenerator g = JSON.createGenerator(out)) {
        g.disable(JsonGenerator.Feature.AUTO_CLOSE_TARGET);
        g.writeStartObject();
        g.writeNumberField("at_ms", startedAtEpochMillis - firstMillis);
        g.writeNumberField("input_tokens", inputTokens);
        g.writeNumberField("output_tokens", outputTokens);
        if (hashesOrNull != null && blockTokens > 0 && hashBlockChars == blockChars) {
          long most = (inputTokens + (long) blockTokens - 1) / blockTokens;
          g.writeArrayFieldStart("hash_ids");
          for (int i = 0; i < Math.min(most, hashesOrNull.length); i++) {
            g.writeNumber(ids.computeIfAbsent(hashesOrNull[i], h -> (long) ids.size()));
            references++;
          }
          g.writeEndArray();
          g.writeNumberField("block_tokens", blockTokens);
        }
        if (conversation != null) {
          String session = sessions.computeIfAbsent(conversation, k -> "s" + (sessions.size() + 1));
          g.writeStringField("session", session);
          g.writeNumberField("turn", turns.merge(session, 1, Integer::sum));
        }
        g.writeEndObject();
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
      try {
        out.write('\n');
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
      written++;
    }

    /** Records written. */
    public long written() {
      return written;
    }

    /** Failed requests left out. */
    public long failed() {
      return failed;
    }

    /** Completed requests left out for want of an input or output count. */
    public long unknownLengths() {
      return unknownLengths;
    }

    /** Distinct block ids written. */
    public long distinctBlocks() {
      return ids.size();
    }

    /** Block ids written, counting repeats. */
    public long blockReferences() {
      return references;
    }

    /** Conversations (sessions) written. */
    public long sessions() {
      return sessions.size();
    }

    /** Tokens per block of the hash ids written, 0 when none. */
    public int blockTokens() {
      return blockTokens;
    }
  }
}

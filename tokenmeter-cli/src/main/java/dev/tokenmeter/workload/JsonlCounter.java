package dev.tokenmeter.workload;

import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.io.SerializedString;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.tokenmeter.tokenizer.Tokenizer;
import java.io.BufferedOutputStream;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

/**
 * {@code tokens --input-jsonl}: counts one string field of every record of a JSON Lines file with
 * several tokenizers, on every core, and writes one line per record and tokenizer in input order,
 * then one totals line per tokenizer.
 *
 * <p>The calling thread reads lines and writes results; worker threads parse and count batches of
 * {@link #BATCH} lines. At most {@code 2 × threads} batches are in flight, so memory is bounded
 * (about 2 × 2 × 512 records) whatever the file's size; results are written batch by batch in the
 * order the batches were read. The first bad record (in file order) stops the count as a usage
 * error naming its line; lines before it have been written.
 */
public final class JsonlCounter {
  /** Lines per task: large enough that handing over costs little next to counting 512 records. */
  public static final int BATCH = 512;

  private static final ObjectMapper MAPPER = new ObjectMapper();

  private final List<Tokenizer> tokenizers;
  private final String field;
  private final Double pricePerMillion;
  private final int threads;

  /**
   * @param pricePerMillion USD per 1M tokens for the totals, or null
   * @param threads worker threads (the cores to use)
   */
  public JsonlCounter(List<Tokenizer> tokenizers, String field, Double pricePerMillion, int threads) {
    this.tokenizers = List.copyOf(tokenizers);
    this.field = field;
    this.pricePerMillion = pricePerMillion;
    this.threads = Math.max(1, threads);
  }

  /** One record's result: its id (or null) and line, and a count per tokenizer. */
  private record Counted(JsonNode id, long line, int[] counts) {}

  /** A batch's records up to its first bad one, and that one's error (null when none). */
  private record Batch(List<Counted> records, RuntimeException error) {}

  /** Counts {@code file} to {@code out}. */
  public void count(Path file, OutputStream out) throws IOException {
    long[] totals = new long[tokenizers.size()];
    long records = 0;
    ExecutorService pool = Executors.newFixedThreadPool(threads, r -> {
      Thread t = new Thread(r, "tokenmeter-count");
      t.setDaemon(true);
      return t;
    });
    ArrayDeque<Future<Batch>> inFlight = new ArrayDeque<>();
    OutputStream sink = new BufferedOutputStream(out, 1 << 16);
    try (BufferedReader reader = Files.newBufferedReader(file, StandardCharsets.UTF_8);
        JsonGenerator g = MAPPER.getFactory().createGenerator(sink)) {
      g.setRootValueSeparator(new SerializedString("\n"));
      long lineNo = 0;
      List<String> batch = new ArrayList<>(BATCH);
      long batchStart = 1;
      for (String line = reader.readLine(); ; line = reader.readLine()) {
        if (line != null) {
          batch.add(line);
          lineNo++;
        }
        if (batch.size() == BATCH || (line == null && !batch.isEmpty())) {
          List<String> lines = batch;
          long first = batchStart;
          inFlight.add(pool.submit(() -> countBatch(file, lines, first)));
          batch = new ArrayList<>(BATCH);
          batchStart = lineNo + 1;
          while (inFlight.size() >= 2 * threads) {
            records += write(g, take(inFlight.poll()), totals);
          }
        }
        if (line == null) {
          break;
        }
      }
      while (!inFlight.isEmpty()) {
        records += write(g, take(inFlight.poll()), totals);
      }
      writeTotals(g, records, totals);
      g.writeRaw('\n');
    } catch (NoSuchFileException e) {
      throw new WorkloadException("file not found: " + file);
    } catch (java.nio.charset.CharacterCodingException e) {
      throw new WorkloadException(file + " is not UTF-8 text (a binary file?): give a JSONL file, one JSON object a line");
    } finally {
      inFlight.forEach(f -> f.cancel(true));
      pool.shutdownNow();
    }
  }

  private Batch countBatch(Path file, List<String> lines, long firstLine) {
    List<Counted> out = new ArrayList<>(lines.size());
    for (int i = 0; i < lines.size(); i++) {
      String line = lines.get(i);
      long lineNo = firstLine + i;
      if (line.isBlank()) {
        continue;
      }
      JsonNode rec;
      try {
        rec = MAPPER.readTree(line);
      } catch (JsonProcessingException e) {
        return new Batch(out, new WorkloadException(
            file + ":" + lineNo + ": not a JSON object: " + e.getOriginalMessage()));
      }
      JsonNode value = rec == null ? null : rec.get(field);
      if (value == null || !value.isTextual()) {
        return new Batch(out, new WorkloadException(
            file + ":" + lineNo + ": no string field \"" + field + "\" (choose it with --field)"));
      }
      String text = value.asText();
      int[] counts = new int[tokenizers.size()];
      for (int k = 0; k < counts.length; k++) {
        counts[k] = tokenizers.get(k).count(text);
      }
      JsonNode id = rec.get("id");
      boolean usableId = id != null && (id.isTextual() || id.isIntegralNumber());
      out.add(new Counted(usableId ? id : null, lineNo, counts));
    }
    return new Batch(out, null);
  }

  private static Batch take(Future<Batch> f) throws IOException {
    try {
      return f.get();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IOException("interrupted", e);
    } catch (ExecutionException e) {
      if (e.getCause() instanceof RuntimeException r) {
        throw r; // WorkloadException, TokenizerException: the user's error, as is
      }
      throw new IOException(e.getCause());
    }
  }

  /** Writes {@code batch}'s records; then throws its error, if any, once they are out. */
  private long write(JsonGenerator g, Batch batch, long[] totals) throws IOException {
    for (Counted c : batch.records()) {
      for (int k = 0; k < tokenizers.size(); k++) {
        totals[k] += c.counts()[k];
        g.writeStartObject();
        if (c.id() != null) {
          g.writeFieldName("id");
          g.writeTree(c.id());
        } else {
          g.writeNumberField("line", c.line());
        }
        g.writeStringField("tokenizer", tokenizers.get(k).name());
        g.writeNumberField("count", c.counts()[k]);
        g.writeEndObject();
      }
    }
    if (batch.error() != null) {
      g.flush();
      throw batch.error();
    }
    return batch.records().size();
  }

  private void writeTotals(JsonGenerator g, long records, long[] totals) throws IOException {
    for (int k = 0; k < tokenizers.size(); k++) {
      g.writeStartObject();
      g.writeBooleanField("total", true);
      g.writeStringField("tokenizer", tokenizers.get(k).name());
      g.writeNumberField("records", records);
      g.writeNumberField("count", totals[k]);
      if (pricePerMillion != null) {
        g.writeNumberField("cost_usd", totals[k] * pricePerMillion / 1_000_000.0);
      }
      g.writeEndObject();
    }
  }
}

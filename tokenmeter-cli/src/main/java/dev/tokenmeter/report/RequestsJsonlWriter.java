package dev.tokenmeter.report;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;
import dev.tokenmeter.core.loadgen.RequestSink;
import dev.tokenmeter.core.metrics.RequestMetrics;
import dev.tokenmeter.core.request.ChunkLog;
import dev.tokenmeter.core.request.Outcome;
import dev.tokenmeter.core.request.RequestTimeline;
import java.io.BufferedOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

/**
 * Streams {@code requests.jsonl}: one JSON object per finished request, any phase, written by its
 * own thread so the event loop never blocks on the disk. Flushed at least every second, so a crash
 * loses at most the last second; {@link #close()} drains everything. Fields are documented in
 * docs/RESULTS.md.
 */
public final class RequestsJsonlWriter implements RequestSink, AutoCloseable {
  private static final JsonFactory JSON = new JsonFactory();
  private static final long FLUSH_NANOS = 1_000_000_000L;

  private record Entry(RequestTimeline timeline, RequestMetrics metrics) {}

  private final LinkedBlockingQueue<Entry> queue = new LinkedBlockingQueue<>();
  // One generator for the file: a generator hands its buffers back only when closed, so one per
  // line allocated ~19 KB of buffers per request (docs/PERFORMANCE.md, "JMH: SSE framing and chunk parsing").
  private final JsonGenerator json;
  private final long runStartNanos;
  private final boolean rawTimes;
  private final Thread thread;
  private volatile boolean closing;
  private volatile IOException failure;
  private long written;

  /** Opens {@code file} (truncating it); times in the file are ms from {@code runStartNanos}. */
  public RequestsJsonlWriter(Path file, long runStartNanos) throws IOException {
    this(file, runStartNanos, false);
  }

  /**
   * As {@link #RequestsJsonlWriter(Path, long)}; with {@code rawTimes} each line also carries the
   * raw ticker values {@code sent_ns} and {@code chunk_ns[]} (one per text chunk, in arrival order),
   * to be joined with a server's ground truth in the same clock (System.nanoTime on Linux). Off by
   * default: at 2,048 tokens per request it makes the file about 20 times larger.
   */
  public RequestsJsonlWriter(Path file, long runStartNanos, boolean rawTimes) throws IOException {
    OutputStream out = new BufferedOutputStream(Files.newOutputStream(file), 1 << 16);
    this.json = JSON.createGenerator(out);
    json.setRootValueSeparator(null); // lines end with '\n', written below
    this.runStartNanos = runStartNanos;
    this.rawTimes = rawTimes;
    this.thread = new Thread(this::drainLoop, "tokenmeter-requests-writer");
    thread.setDaemon(true);
    thread.start();
  }

  @Override
  public void accept(RequestTimeline timeline, RequestMetrics metrics) {
    queue.add(new Entry(timeline, metrics));
  }

  private void drainLoop() {
    List<Entry> batch = new ArrayList<>(256);
    try {
      while (!closing || !queue.isEmpty()) {
        Entry first = queue.poll(FLUSH_NANOS, TimeUnit.NANOSECONDS);
        if (first != null) {
          batch.add(first);
          queue.drainTo(batch);
          for (Entry e : batch) {
            write(e);
          }
          batch.clear();
        }
        json.flush();
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    } catch (IOException e) {
      failure = e;
    }
  }

  private void write(Entry e) throws IOException {
    RequestTimeline t = e.timeline();
    RequestMetrics m = e.metrics();
    JsonGenerator g = json;
    g.writeStartObject();
    g.writeNumberField("id", t.id());
    g.writeNumberField("stage", t.stage());
    g.writeStringField("phase", t.phase().wireName());
    if (t.spec().turn() != null) {
      g.writeNumberField("session", t.spec().turn().session());
      g.writeNumberField("turn", t.spec().turn().turn());
    }
    ms(g, "scheduled_at_ms", t.scheduledNanos() - runStartNanos);
    if (t.sentNanos() >= 0) {
      ms(g, "sent_at_ms", t.sentNanos() - runStartNanos);
    }
    Outcome o = t.outcome();
    g.writeBooleanField("ok", o.succeeded());
    if (o.errorClass() != null) {
      g.writeStringField("error_class", o.errorClass().wireName());
      g.writeStringField("error", describe(o));
    }
    if (t.httpStatus() >= 0) {
      g.writeNumberField("http_status", t.httpStatus());
    }
    if (t.finishReason() != null) {
      g.writeStringField("finish_reason", t.finishReason());
    }
    if (t.toolCallCount() > 0) {
      g.writeNumberField("tool_calls", t.toolCallCount());
    }
    optMs(g, "ttft_ms", m.ttftNanos());
    optMs(g, "ttft_from_scheduled_ms", m.ttftFromScheduledNanos());
    optMs(g, "ttfc_ms", m.timeToFirstContentNanos());
    optMs(g, "e2e_ms", m.e2eNanos());
    optMs(g, "e2e_from_scheduled_ms", m.e2eFromScheduledNanos());
    if (m.tpotUndefined()) {
      g.writeNullField("tpot_ms");
      g.writeNullField("decode_tps");
    } else {
      g.writeNumberField("tpot_ms", round3(m.tpotNanos() / 1e6));
      g.writeNumberField("decode_tps", round3(m.decodeTokensPerSecond()));
    }
    g.writeNumberField("output_tokens", m.outputTokens());
    g.writeStringField("output_tokens_source", m.outputTokenSource().wireName());
    if (m.usageOutputTokens() >= 0) {
      g.writeNumberField("usage_completion_tokens", m.usageOutputTokens());
    }
    if (m.tokenizerOutputTokens() >= 0) {
      g.writeNumberField("tokenizer_output_tokens", m.tokenizerOutputTokens());
    }
    g.writeNumberField("output_words", m.outputWords());
    g.writeNumberField("chunks", m.chunkCount());
    if (m.inputTokens() >= 0) {
      g.writeNumberField("input_tokens", m.inputTokens());
    }
    if (m.usagePromptTokens() >= 0) {
      g.writeNumberField("usage_prompt_tokens", m.usagePromptTokens());
    }
    if (t.usageCachedTokens() >= 0) {
      g.writeNumberField("usage_cached_tokens", t.usageCachedTokens());
    }
    if (m.clientPromptTokens() >= 0) {
      g.writeNumberField("client_prompt_tokens", m.clientPromptTokens());
      g.writeBooleanField("client_prompt_tokens_exact", t.spec().promptTokensExact());
    }
    if (t.spec().maxTokens().isPresent()) {
      g.writeNumberField("max_tokens", t.spec().maxTokens().getAsInt());
    }
    g.writeBooleanField("new_connection", t.connectedNanos() >= 0);
    optMs(g, "connect_ms", m.connectNanos());
    g.writeNumberField("reasoning_chars", t.reasoningChars());
    g.writeNumberField("content_chars", t.content().length());
    if (rawTimes) {
      writeRawTimes(g, t);
    }
    g.writeEndObject();
    g.writeRaw('\n');
    written++;
  }

  private static void writeRawTimes(JsonGenerator g, RequestTimeline t) throws IOException {
    if (t.sentNanos() >= 0) {
      g.writeNumberField("sent_ns", t.sentNanos());
    }
    g.writeArrayFieldStart("chunk_ns");
    for (ChunkLog.Cursor c = t.chunks().cursor(); c.next(); ) {
      g.writeNumber(c.nanos());
    }
    g.writeEndArray();
  }

  private static String describe(Outcome o) {
    String d = o.description();
    return d == null ? "" : d;
  }

  private static void ms(JsonGenerator g, String name, long nanos) throws IOException {
    g.writeNumberField(name, round3(nanos / 1e6));
  }

  private static void optMs(JsonGenerator g, String name, long nanos) throws IOException {
    if (nanos >= 0) {
      ms(g, name, nanos);
    }
  }

  private static double round3(double v) {
    return Math.round(v * 1000) / 1000.0;
  }

  /** Writes everything queued and closes the file. Waits at most 10 s for the writer thread. */
  @Override
  public void close() {
    closing = true;
    try {
      thread.join(10_000);
      json.close(); // and the file
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    if (failure != null) {
      throw new UncheckedIOException("writing requests.jsonl failed", failure);
    }
  }

  /** Records written so far (after close: all of them). */
  public long written() {
    return written;
  }
}

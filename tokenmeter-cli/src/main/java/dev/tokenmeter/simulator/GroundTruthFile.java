package dev.tokenmeter.simulator;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;
import java.io.BufferedOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

/**
 * Writes every {@link EmissionRecord} to a JSONL file on its own thread (the server loop only
 * enqueues): the ground truth a benchmark in another process compares its measurements with. Times
 * are raw {@code System.nanoTime} values, comparable across processes on Linux.
 *
 * <p>One line per response: {@code client_request_id}, {@code server_request_id}, {@code ending},
 * {@code fault}, {@code cached_prompt_tokens}, {@code arrival_ns}, {@code headers_ns}, {@code tokens}, {@code intended_ns[]},
 * {@code actual_ns[]}.
 */
public final class GroundTruthFile implements GroundTruthSink, AutoCloseable {
  private static final JsonFactory JSON = new JsonFactory();
  private final LinkedBlockingQueue<EmissionRecord> queue = new LinkedBlockingQueue<>();
  private final OutputStream out;
  private final Thread thread;
  private volatile boolean closing;

  public GroundTruthFile(Path file) throws IOException {
    this.out = new BufferedOutputStream(Files.newOutputStream(file), 1 << 16);
    this.thread = new Thread(this::drain, "tokenmeter-ground-truth");
    thread.setDaemon(true);
    thread.start();
  }

  @Override
  public void accept(EmissionRecord r) {
    queue.add(r);
  }

  private void drain() {
    List<EmissionRecord> batch = new ArrayList<>();
    try {
      while (!closing || !queue.isEmpty()) {
        EmissionRecord first = queue.poll(500, TimeUnit.MILLISECONDS);
        if (first == null) {
          out.flush();
          continue;
        }
        batch.add(first);
        queue.drainTo(batch);
        for (EmissionRecord r : batch) {
          write(r);
        }
        batch.clear();
      }
      out.flush();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    } catch (IOException e) {
      System.err.println("tokenmeter sim: cannot write the ground-truth file: " + e.getMessage());
    }
  }

  private void write(EmissionRecord r) throws IOException {
    JsonGenerator g = JSON.createGenerator(out);
    g.writeStartObject();
    g.writeStringField("client_request_id", r.clientRequestId());
    g.writeNumberField("server_request_id", r.serverRequestId());
    g.writeStringField("ending", r.ending().name().toLowerCase(java.util.Locale.ROOT));
    g.writeStringField("fault", r.fault().name().toLowerCase(java.util.Locale.ROOT));
    g.writeNumberField("cached_prompt_tokens", r.cachedPromptTokens());
    g.writeNumberField("arrival_ns", r.arrivalNanos());
    g.writeNumberField("headers_ns", r.headersNanos());
    g.writeNumberField("tokens", r.tokenCount());
    g.writeFieldName("intended_ns");
    g.writeArray(r.intendedNanos(), 0, r.intendedNanos().length);
    g.writeFieldName("actual_ns");
    g.writeArray(r.actualNanos(), 0, r.actualNanos().length);
    g.writeEndObject();
    g.flush();
    out.write('\n');
  }

  @Override
  public void close() {
    closing = true;
    try {
      thread.join(5_000);
      out.close();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    } catch (IOException e) {
      // best effort at shutdown
    }
  }
}

package dev.tokenmeter.bench;

import dev.tokenmeter.client.ChunkParser;
import dev.tokenmeter.core.request.StreamItem;
import dev.tokenmeter.sse.SseEvent;
import dev.tokenmeter.sse.SseFramer;
import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OperationsPerInvocation;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;
import org.openjdk.jmh.infra.Blackhole;

/**
 * Client CPU per streamed token chunk: one realistic vLLM chat chunk (about 230 bytes, {@code data:
 * {...}\n\n}) per network read, as a server that flushes each token produces. Scores are
 * nanoseconds per chunk (each invocation handles {@value #CHUNKS} chunks).
 *
 * <pre>
 * ./mvnw -q -o -Pjmh package -DskipTests
 * java -jar target/tokenmeter-jmh.jar SseParse -f 1 -wi 3 -w 1 -i 5 -r 1
 * </pre>
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(1)
public class SseParseBenchmark {

  static final int CHUNKS = 64;
  private static final String[] WORDS = {
    " The",
    " capital",
    " of",
    " France",
    " is",
    " Paris",
    ".",
    " It",
    " has",
    " been",
    " 日本",
    " the",
    " seat",
    " of",
    " government",
    " since",
    " 987",
    ",",
    " é",
    "\\n"
  };

  private byte[] stream; // all chunks back to back, each read fed separately
  private int[] chunkStarts;
  private SseEvent[] events;
  private SseFramer framerOnly;
  private SseFramer framerAndParser;
  private SseFramer lendingFramer;
  private SseFramer lendingFramerAndParser;
  private ChunkParser parser;
  private Blackhole blackhole;
  private Consumer<StreamItem> sink;

  @Setup
  public void setUp(Blackhole bh) {
    blackhole = bh;
    sink = bh::consume;
    parser = new ChunkParser();
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    chunkStarts = new int[CHUNKS + 1];
    List<SseEvent> framed = new ArrayList<>();
    for (int i = 0; i < CHUNKS; i++) {
      chunkStarts[i] = out.size();
      String json =
          "{\"id\":\"chatcmpl-3f9a2c1e8b7d4e6f9a0b1c2d3e4f5a6b\",\"object\":\"chat.completion.chunk\","
              + "\"created\":1718000000,\"model\":\"meta-llama/Llama-3.1-8B-Instruct\",\"choices\":"
              + "[{\"index\":0,\"delta\":{\"content\":\""
              + WORDS[i % WORDS.length]
              + "\"},\"logprobs\":null,\"finish_reason\":null}]}";
      out.writeBytes(("data: " + json + "\n\n").getBytes(StandardCharsets.UTF_8));
      framed.add(SseEvent.of(null, json, null));
    }
    chunkStarts[CHUNKS] = out.size();
    stream = out.toByteArray();
    events = framed.toArray(new SseEvent[0]);
    framerOnly = new SseFramer(blackhole::consume);
    framerAndParser = new SseFramer(event -> parser.parse(event, sink));
    lendingFramer = SseFramer.lending((type, data, offset, length) -> bh.consume(data));
    lendingFramerAndParser =
        SseFramer.lending((type, data, offset, length) -> parser.parse(data, offset, length, sink));
  }

  /** Framing only: find the lines, copy the data out once, build the event. */
  @Benchmark
  @OperationsPerInvocation(CHUNKS)
  public void framer() {
    feedChunks(framerOnly);
  }

  /** The client's hot path: framing plus JSON parsing into stream items. */
  @Benchmark
  @OperationsPerInvocation(CHUNKS)
  public void framerAndParser() {
    feedChunks(framerAndParser);
  }

  /** Framing that lends each event's data instead of copying it (the client's framer). */
  @Benchmark
  @OperationsPerInvocation(CHUNKS)
  public void lendingFramer() {
    feedChunks(lendingFramer);
  }

  /** The client's hot path since the framer lends: framing plus parsing, no event, no copy. */
  @Benchmark
  @OperationsPerInvocation(CHUNKS)
  public void lendingFramerAndParser() {
    feedChunks(lendingFramerAndParser);
  }

  /** JSON parsing only, from already framed events. */
  @Benchmark
  @OperationsPerInvocation(CHUNKS)
  public void parser() {
    for (SseEvent event : events) {
      parser.parse(event, sink);
    }
  }

  /** Framing when one read carries many chunks (a fast server, a slow client). */
  @Benchmark
  @OperationsPerInvocation(CHUNKS)
  public void framerOneRead() {
    framerOnly.feed(stream, 0, stream.length);
  }

  private void feedChunks(SseFramer framer) {
    for (int i = 0; i < CHUNKS; i++) {
      framer.feed(stream, chunkStarts[i], chunkStarts[i + 1] - chunkStarts[i]);
    }
  }
}

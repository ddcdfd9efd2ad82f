package dev.tokenmeter.proxy;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tokenmeter.client.Api;
import dev.tokenmeter.client.ApiEndpoint;
import dev.tokenmeter.client.EndpointConfig;
import dev.tokenmeter.core.loadgen.ExchangeListener;
import dev.tokenmeter.core.metrics.RequestMetrics;
import dev.tokenmeter.core.request.ErrorClass;
import dev.tokenmeter.core.request.Outcome;
import dev.tokenmeter.core.request.Phase;
import dev.tokenmeter.core.request.Prompt;
import dev.tokenmeter.core.request.RequestSpec;
import dev.tokenmeter.core.request.RequestTimeline;
import dev.tokenmeter.core.request.StreamItem;
import dev.tokenmeter.core.request.TokenCountSource;
import dev.tokenmeter.core.time.Ticker;
import dev.tokenmeter.ledger.MeteredRequest;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.OptionalInt;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * One response reader for bench and the proxy: the same scripted upstream response, asked once by
 * bench's client directly and once by bench's client through the proxy, gives bench's record and
 * the proxy's ledger record with the same outcome class and text, status, finish reason and
 * counts. The responses are the real wire transcripts of each API (src/test/resources/transcripts)
 * and the cases where the two readers used to disagree: an empty error body, an error event in a
 * 200 stream, a connection cut mid-stream, bytes after {@code [DONE]}, Ollama's NDJSON.
 */
class ReaderParityTest {
  private static ScriptedUpstream upstream;
  private static ProxyFixture proxy;

  /** What both records say about a request, timing aside (the two clocks sit at different points). */
  record Seen(int status, ErrorClass errorClass, String error, String finishReason, int inputTokens, int outputTokens,
      TokenCountSource source, int reasoningTokens, int cachedTokens, int chunks) {

    static Seen of(RequestTimeline t) {
      RequestMetrics m = RequestMetrics.of(t, null);
      Outcome o = t.outcome();
      return new Seen(t.httpStatus(), o.errorClass(), o.description(), t.finishReason(), m.inputTokens(),
          m.outputTokens(), m.outputTokenSource(), t.usageReasoningTokens(), t.usageCachedTokens(), m.chunkCount());
    }

    static Seen of(MeteredRequest r) {
      return new Seen(r.httpStatus(), r.errorClass(), r.error(), r.finishReason(), r.inputTokens(), r.outputTokens(),
          r.outputTokensSource(), r.reasoningTokens(), r.cachedTokens(), r.chunks());
    }
  }

  @BeforeAll
  static void start() {
    upstream = new ScriptedUpstream(ReaderParityTest::respond);
    proxy = ProxyFixture.start(upstream.baseUrl());
  }

  @AfterAll
  static void stop() {
    proxy.close();
    upstream.close();
  }

  static Stream<Arguments> cases() {
    return Stream.of(
        Arguments.of(Api.CHAT, "vllm-chat-usage.sse", null),
        Arguments.of(Api.CHAT, "openai-tool-calls.sse", null),
        Arguments.of(Api.CHAT, "vllm-reasoning-both-fields.sse", null),
        Arguments.of(Api.CHAT, "vllm-error-midstream.sse", ErrorClass.STREAM_ERROR),
        Arguments.of(Api.CHAT, "openai-error-midstream.sse", ErrorClass.STREAM_ERROR),
        Arguments.of(Api.CHAT, "vllm-error-response.body 400", ErrorClass.HTTP_4XX),
        Arguments.of(Api.CHAT, "empty 500", ErrorClass.HTTP_5XX),
        Arguments.of(Api.CHAT, "empty-error-event", ErrorClass.STREAM_ERROR),
        Arguments.of(Api.CHAT, "cut vllm-chat-usage.sse", ErrorClass.TRUNCATED),
        Arguments.of(Api.CHAT, "done-then-garbage", null),
        Arguments.of(Api.CHAT, "no-finish", ErrorClass.TRUNCATED),
        Arguments.of(Api.CHAT, "malformed", ErrorClass.PROTOCOL),
        Arguments.of(Api.CHAT, "html", ErrorClass.PROTOCOL),
        Arguments.of(Api.COMPLETIONS, "vllm-completions-usage.sse", null),
        Arguments.of(Api.ANTHROPIC, "anthropic-messages.sse", null),
        Arguments.of(Api.ANTHROPIC, "anthropic-error-midstream.sse", ErrorClass.STREAM_ERROR),
        Arguments.of(Api.RESPONSES, "responses-text.sse", null),
        Arguments.of(Api.RESPONSES, "responses-failed.sse", ErrorClass.STREAM_ERROR),
        Arguments.of(Api.GEMINI, "gemini-stream.sse", null),
        Arguments.of(Api.TGI, "tgi-generate-stream.sse", null),
        Arguments.of(Api.OLLAMA, "ollama-native-chat.ndjson", null),
        Arguments.of(Api.OLLAMA, "ollama-error.ndjson", ErrorClass.STREAM_ERROR),
        Arguments.of(Api.OLLAMA, "cut ollama-native-chat.ndjson", ErrorClass.TRUNCATED),
        Arguments.of(Api.OLLAMA_GENERATE, "ollama-generate.ndjson", null));
  }

  @ParameterizedTest(name = "{0} {1}")
  @MethodSource("cases")
  void benchAndTheProxyRecordTheSameResponseAlike(Api api, String script, ErrorClass expected) throws Exception {
    Seen direct = bench(api, upstream.baseUrl(), script);
    int before = proxy.records.size();
    Seen viaProxy = bench(api, proxy.baseUrl(), script);
    MeteredRequest metered = proxy.awaitRecords(before + 1).get(before);

    assertThat(direct.errorClass()).as("bench's outcome of %s", script).isEqualTo(expected);
    assertThat(Seen.of(metered)).as("the proxy's record of %s", script).isEqualTo(direct);
    assertThat(viaProxy).as("bench through the proxy: the bytes pass unchanged").isEqualTo(direct);
  }

  /** Bench's own record of one request: its client, its timeline, its metric math. */
  private static Seen bench(Api api, String baseUrl, String script) throws Exception {
    EndpointConfig config = new EndpointConfig(URI.create(baseUrl), api, "m", null, Map.of("x-script", script), null,
        true, true, 2_000);
    try (ApiEndpoint endpoint = ApiEndpoint.create(config, Ticker.system())) {
      RequestSpec spec = new RequestSpec(1, new Prompt.Text("hi"), -1, false, OptionalInt.of(16));
      RequestTimeline t = new RequestTimeline(spec, 0, Phase.MEASURED, Ticker.system().nanos());
      CompletableFuture<Seen> seen = new CompletableFuture<>();
      ExchangeListener listener = new ExchangeListener() {
        @Override
        public void connected(long connectStartNanos, long connectedNanos) {
          t.connected(connectStartNanos, connectedNanos);
        }

        @Override
        public void sent(long nanos) {
          t.sent(nanos);
        }

        @Override
        public void headers(int status, long nanos) {
          t.headers(status, nanos);
        }

        @Override
        public void item(StreamItem item, long nanos) {
          t.item(item, nanos);
        }

        @Override
        public void end(Outcome outcome, long nanos) {
          t.end(outcome, nanos);
          seen.complete(Seen.of(t));
        }
      };
      endpoint.loop().execute(() -> endpoint.start(spec, listener));
      return seen.get(10, TimeUnit.SECONDS);
    }
  }

  // ---- the scripted upstream ----

  private static void respond(ScriptedUpstream.Request request, OutputStream out, InputStream in) throws IOException {
    String script = request.headers().get("x-script");
    String[] words = script.split(" ");
    switch (words[0]) {
      case "empty" -> out.write(("HTTP/1.1 " + words[1] + " Internal Server Error\r\ncontent-length: 0\r\n\r\n")
          .getBytes(StandardCharsets.US_ASCII));
      case "empty-error-event" -> sse(out, "data: {\"choices\":[{\"delta\":{\"content\":\"a\"},\"finish_reason\":null}]}\n\n"
          + "data: {\"error\":{\"message\":\"\"}}\n\ndata: [DONE]\n\n");
      case "done-then-garbage" -> sse(out, "data: {\"choices\":[{\"delta\":{\"content\":\"a\"},\"finish_reason\":null}]}\n\n"
          + "data: [DONE]\n\ndata: {oops\n\n");
      case "no-finish" -> sse(out, "data: {\"choices\":[{\"delta\":{\"content\":\"a\"},\"finish_reason\":null}]}\n\n");
      case "malformed" -> sse(out, "data: {\"choices\":[{\"delta\":{\"content\":\"a\"},\"finish_reason\":null}]}\n\n"
          + "data: {oops\n\ndata: {\"choices\":[{\"delta\":{\"content\":\"b\"},\"finish_reason\":\"stop\"}]}\n\n");
      case "html" -> whole(out, "200 OK", "text/html", "<html>busy</html>");
      case "cut" -> {
        byte[] body = transcript(words[1]);
        out.write(head("200 OK", contentType(words[1])).getBytes(StandardCharsets.US_ASCII));
        out.write(ScriptedUpstream.chunk(new String(body, 0, body.length / 2, StandardCharsets.UTF_8)));
        out.flush();
        throw new IOException("cut mid-stream"); // the upstream closes the connection
      }
      default -> {
        String status = words.length > 1 ? words[1] + " Error" : "200 OK";
        whole(out, status, contentType(words[0]), new String(transcript(words[0]), StandardCharsets.UTF_8));
      }
    }
  }

  private static void sse(OutputStream out, String body) throws IOException {
    out.write(ScriptedUpstream.sseHead().getBytes(StandardCharsets.US_ASCII));
    out.write(ScriptedUpstream.chunk(body));
    out.write("0\r\n\r\n".getBytes(StandardCharsets.US_ASCII));
  }

  private static void whole(OutputStream out, String status, String contentType, String body) throws IOException {
    out.write(head(status, contentType).getBytes(StandardCharsets.US_ASCII));
    // one HTTP chunk per line: the reads split the stream as a server's flushes do
    for (String line : body.split("(?<=\n)")) {
      out.write(ScriptedUpstream.chunk(line));
    }
    out.write("0\r\n\r\n".getBytes(StandardCharsets.US_ASCII));
  }

  private static String head(String status, String contentType) {
    return "HTTP/1.1 " + status + "\r\ncontent-type: " + contentType + "\r\ntransfer-encoding: chunked\r\n\r\n";
  }

  private static String contentType(String name) {
    return name.endsWith(".sse") ? "text/event-stream" : name.endsWith(".ndjson") ? "application/x-ndjson"
        : "application/json";
  }

  /** A transcript's bytes, without the "# source" comment lines of the NDJSON ones. */
  private static byte[] transcript(String name) {
    try (InputStream in = ReaderParityTest.class.getResourceAsStream("/transcripts/" + name)) {
      assertThat(in).as(name).isNotNull();
      String text = new String(in.readAllBytes(), StandardCharsets.UTF_8);
      while (name.endsWith(".ndjson") && text.startsWith("#")) {
        text = text.substring(text.indexOf('\n') + 1);
      }
      return text.getBytes(StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}

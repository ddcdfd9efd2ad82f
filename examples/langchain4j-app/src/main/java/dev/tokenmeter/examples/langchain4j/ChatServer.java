package dev.tokenmeter.examples.langchain4j;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.Executors;

/**
 * The chat service over HTTP, OpenAI-compatible so that any OpenAI client (and {@code tokenmeter
 * bench}) can use it: {@code POST /v1/chat/completions} streams the answer as chat-completion chunks
 * (server-sent events), {@code GET /v1/models} lists the one model, {@code chat-service}.
 */
public final class ChatServer implements AutoCloseable {
  public static final String MODEL = "chat-service";
  private static final ObjectMapper JSON = new ObjectMapper();

  private final HttpServer server;
  private final ChatService service;

  private ChatServer(HttpServer server, ChatService service) {
    this.server = server;
    this.service = service;
  }

  /** Serves {@code service} on 127.0.0.1:{@code port} (0: a free port). */
  public static ChatServer start(ChatService service, int port) throws IOException {
    HttpServer http = HttpServer.create(new InetSocketAddress("127.0.0.1", port), 256);
    ChatServer s = new ChatServer(http, service);
    http.createContext("/v1/models", s::models);
    http.createContext("/v1/chat/completions", s::chat);
    http.setExecutor(Executors.newVirtualThreadPerTaskExecutor());
    http.start();
    return s;
  }

  /** {@code http://127.0.0.1:PORT}. */
  public String url() {
    return "http://127.0.0.1:" + server.getAddress().getPort();
  }

  private void models(HttpExchange x) throws IOException {
    byte[] body = ("{\"object\":\"list\",\"data\":[{\"id\":\"" + MODEL + "\",\"object\":\"model\",\"owned_by\":\"example\"}]}")
        .getBytes(StandardCharsets.UTF_8);
    x.getResponseHeaders().set("content-type", "application/json");
    x.sendResponseHeaders(200, body.length);
    try (OutputStream out = x.getResponseBody()) {
      out.write(body);
    }
  }

  private void chat(HttpExchange x) throws IOException {
    JsonNode request = JSON.readTree(x.getRequestBody());
    JsonNode messages = request.path("messages");
    String question = messages.isArray() && !messages.isEmpty()
        ? messages.get(messages.size() - 1).path("content").asText() : "";
    String id = "chatcmpl-" + Long.toHexString(System.nanoTime());
    x.getResponseHeaders().set("content-type", "text/event-stream");
    x.sendResponseHeaders(200, 0);
    try (OutputStream out = x.getResponseBody()) {
      ChatService.Reply reply;
      try {
        reply = service.chat(question, token -> send(out, chunk(id, token, null)));
      } catch (RuntimeException e) {
        send(out, "{\"error\":{\"message\":" + JSON.writeValueAsString(String.valueOf(e.getMessage())) + "}}");
        return;
      }
      ObjectNode last = chunk(id, null, "stop");
      if (request.path("stream_options").path("include_usage").asBoolean()) {
        last.putObject("usage").put("prompt_tokens", reply.inputTokens()).put("completion_tokens", reply.outputTokens())
            .put("total_tokens", reply.inputTokens() + reply.outputTokens());
      }
      send(out, last);
      send(out, "[DONE]");
    }
  }

  private static ObjectNode chunk(String id, String token, String finish) {
    ObjectNode c = JSON.createObjectNode().put("id", id).put("object", "chat.completion.chunk")
        .put("created", System.currentTimeMillis() / 1000).put("model", MODEL);
    ObjectNode choice = c.putArray("choices").addObject().put("index", 0);
    ObjectNode delta = choice.putObject("delta");
    if (token != null) {
      delta.put("content", token);
    }
    choice.put("finish_reason", finish);
    return c;
  }

  private static void send(OutputStream out, Object data) {
    try {
      String text = data instanceof String s ? s : JSON.writeValueAsString(data);
      out.write(("data: " + text + "\n\n").getBytes(StandardCharsets.UTF_8));
      out.flush();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  @Override
  public void close() {
    server.stop(0);
  }
}

package dev.tokenmeter.examples.springai;

import java.util.List;
import java.util.Map;
import org.springframework.http.MediaType;
import org.springframework.http.codec.ServerSentEvent;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestBody;
import org.springframework.web.bind.annotation.RestController;
import reactor.core.publisher.Flux;

/**
 * The chat service over HTTP, OpenAI-compatible so that any OpenAI client (and {@code tokenmeter
 * bench}) can use it: {@code POST /v1/chat/completions} streams chat-completion chunks,
 * {@code GET /v1/models} lists the one model, {@code chat-service}.
 */
@RestController
public class ChatController {
  public static final String MODEL = "chat-service";
  private final ChatService service;

  public ChatController(ChatService service) {
    this.service = service;
  }

  @GetMapping("/v1/models")
  public Map<String, Object> models() {
    return Map.of("object", "list", "data", List.of(Map.of("id", MODEL, "object", "model", "owned_by", "example")));
  }

  @PostMapping(path = "/v1/chat/completions", produces = MediaType.TEXT_EVENT_STREAM_VALUE)
  public Flux<ServerSentEvent<String>> chat(@RequestBody Map<String, Object> request) {
    String question = "";
    if (request.get("messages") instanceof List<?> messages && !messages.isEmpty()
        && messages.get(messages.size() - 1) instanceof Map<?, ?> last) {
      question = String.valueOf(last.get("content"));
    }
    String id = "chatcmpl-" + Long.toHexString(System.nanoTime());
    return service.stream(question)
        .map(token -> chunk(id, "{\"content\":" + quote(token) + "}", "null"))
        .concatWith(Flux.just(chunk(id, "{}", "\"stop\""), "[DONE]"))
        .onErrorResume(e -> Flux.just("{\"error\":{\"message\":" + quote(String.valueOf(e.getMessage())) + "}}"))
        .map(data -> ServerSentEvent.builder(data).build());
  }

  private static String chunk(String id, String delta, String finish) {
    return "{\"id\":\"" + id + "\",\"object\":\"chat.completion.chunk\",\"created\":" + System.currentTimeMillis() / 1000
        + ",\"model\":\"" + MODEL + "\",\"choices\":[{\"index\":0,\"delta\":" + delta + ",\"finish_reason\":" + finish + "}]}";
  }

  private static String quote(String s) {
    StringBuilder out = new StringBuilder("\"");
    for (char c : s.toCharArray()) {
      switch (c) {
        case '"' -> out.append("\\\"");
        case '\\' -> out.append("\\\\");
        case '\n' -> out.append("\\n");
        case '\r' -> out.append("\\r");
        case '\t' -> out.append("\\t");
        default -> {
          if (c < 0x20) {
            out.append(String.format("\\u%04x", (int) c));
          } else {
            out.append(c);
          }
        }
      }
    }
    return out.append('"').toString();
  }
}

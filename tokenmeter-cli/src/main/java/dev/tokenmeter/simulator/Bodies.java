package dev.tokenmeter.simulator;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The JSON bodies that are not streamed, in vLLM's shapes and field order (off the hot path, so
 * built with Jackson). Thread-safe.
 *
 * <p>Errors use the current vLLM shape {@code {"error":{"message":…,"type":…,"param":null,
 * "code":400}}} (vLLM ≥ 0.10's {@code ErrorResponse(error=ErrorInfo(...))}); older vLLM sent the
 * flat {@code {"object":"error","message":…,"type":…,"param":null,"code":400}}. Unknown routes
 * get FastAPI's {@code {"detail":"Not Found"}}, as vLLM's server does. Non-streamed completions
 * follow vLLM 0.9/0.10's pydantic {@code model_dump()}.
 */
final class Bodies {

  private static final ObjectMapper MAPPER = new ObjectMapper();

  private Bodies() {}

  /** An OpenAI-style error body. */
  static byte[] error(String message, String type, int code) {
    Map<String, Object> error = new LinkedHashMap<>();
    error.put("message", message);
    error.put("type", type);
    error.put("param", null);
    error.put("code", code);
    return bytes(Map.of("error", error));
  }

  /** FastAPI's body for routing errors, e.g. {@code {"detail":"Not Found"}}. */
  static byte[] detail(String detail) {
    return bytes(Map.of("detail", detail));
  }

  /** A JSON string literal, quotes included. */
  static String quote(String s) {
    try {
      return MAPPER.writeValueAsString(s);
    } catch (JsonProcessingException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** {@code s} escaped for the inside of a JSON string (no quotes), UTF-8. */
  static byte[] escaped(String s) {
    String q = quote(s);
    return q.substring(1, q.length() - 1).getBytes(java.nio.charset.StandardCharsets.UTF_8);
  }

  /** {@code GET /v1/models}: one model, vLLM's {@code ModelCard} with its permission entry. */
  static byte[] models(String model, long createdSeconds, int maxModelLen, String permissionId) {
    Map<String, Object> permission = new LinkedHashMap<>();
    permission.put("id", permissionId);
    permission.put("object", "model_permission");
    permission.put("created", createdSeconds);
    permission.put("allow_create_engine", false);
    permission.put("allow_sampling", true);
    permission.put("allow_logprobs", true);
    permission.put("allow_search_indices", false);
    permission.put("allow_view", true);
    permission.put("allow_fine_tuning", false);
    permission.put("organization", "*");
    permission.put("group", null);
    permission.put("is_blocking", false);
    Map<String, Object> card = new LinkedHashMap<>();
    card.put("id", model);
    card.put("object", "model");
    card.put("created", createdSeconds);
    card.put("owned_by", "vllm");
    card.put("root", model);
    card.put("parent", null);
    card.put("max_model_len", maxModelLen);
    card.put("permission", List.of(permission));
    Map<String, Object> list = new LinkedHashMap<>();
    list.put("object", "list");
    list.put("data", List.of(card));
    return bytes(list);
  }

  /**
   * A non-streamed {@code chat.completion} or {@code text_completion} response; {@code
   * prompt_tokens_details} is {@code {"cached_tokens":N}} (vLLM with {@code
   * --enable-prompt-tokens-details}). With {@code toolCalls} (chat only), the message is tool calls:
   * {@code content} null, one {@code tool_calls} entry per call {@code text} reached, whose {@code
   * arguments} are that call's part of {@code text} ({@link ToolCalls.Reply#split}).
   */
  static byte[] completion(
      GenerationRequest.Api api,
      String id,
      long createdSeconds,
      String model,
      String text,
      String finishReason,
      int promptTokens,
      int completionTokens,
      int cachedTokens,
      ToolCalls.Reply toolCalls) {
    return completion(api, id, createdSeconds, model, text, finishReason, promptTokens, completionTokens, cachedTokens,
        toolCalls, false);
  }

  /** As above; with {@code refusal} (chat only) the text is {@code message.refusal} and {@code content} null. */
  static byte[] completion(
      GenerationRequest.Api api,
      String id,
      long createdSeconds,
      String model,
      String text,
      String finishReason,
      int promptTokens,
      int completionTokens,
      int cachedTokens,
      ToolCalls.Reply toolCalls,
      boolean refusal) {
    boolean chat = api == GenerationRequest.Api.CHAT;
    Map<String, Object> choice = new LinkedHashMap<>();
    choice.put("index", 0);
    if (chat) {
      Map<String, Object> message = new LinkedHashMap<>();
      message.put("role", "assistant");
      message.put("content", toolCalls == null && !refusal ? text : null);
      message.put("refusal", refusal ? text : null);
      message.put("annotations", null);
      message.put("audio", null);
      message.put("function_call", null);
      List<Object> calls = new ArrayList<>();
      if (toolCalls != null) {
        List<String> arguments = toolCalls.split(text);
        for (int i = 0; i < arguments.size(); i++) {
          Map<String, Object> call = new LinkedHashMap<>();
          call.put("id", toolCalls.id(i));
          call.put("type", "function");
          call.put("function", Map.of("name", toolCalls.call(i).name(), "arguments", arguments.get(i)));
          calls.add(call);
        }
      }
      message.put("tool_calls", calls);
      message.put("reasoning_content", null);
      choice.put("message", message);
    } else {
      choice.put("text", text);
    }
    choice.put("logprobs", null);
    choice.put("finish_reason", finishReason);
    choice.put("stop_reason", null);
    if (!chat) {
      choice.put("prompt_logprobs", null);
    }
    Map<String, Object> usage = new LinkedHashMap<>();
    usage.put("prompt_tokens", promptTokens);
    usage.put("total_tokens", promptTokens + completionTokens);
    usage.put("completion_tokens", completionTokens);
    usage.put("prompt_tokens_details", Map.of("cached_tokens", cachedTokens));
    Map<String, Object> body = new LinkedHashMap<>();
    body.put("id", id);
    body.put("object", chat ? "chat.completion" : "text_completion");
    body.put("created", createdSeconds);
    body.put("model", model);
    body.put("choices", List.of(choice));
    if (chat) {
      body.put("service_tier", null);
      body.put("system_fingerprint", null);
    }
    body.put("usage", usage);
    if (chat) {
      body.put("prompt_logprobs", null);
    }
    body.put("kv_transfer_params", null);
    return bytes(body);
  }

  private static byte[] bytes(Object value) {
    try {
      return MAPPER.writeValueAsBytes(value);
    } catch (JsonProcessingException e) {
      throw new UncheckedIOException(e);
    }
  }
}

package dev.tokenmeter.core.request;

import java.util.Objects;

/**
 * One tool call of a conversation: on an assistant {@link Message}, the call the model made (its
 * id, the function's name and the arguments as compact JSON); on a {@code tool} message, the call
 * that message answers ({@code arguments} null). Endpoint adapters write it in each API's own form
 * (OpenAI {@code tool_calls} and {@code tool_call_id}, Anthropic {@code tool_use} and {@code
 * tool_result} blocks, Gemini {@code functionCall} and {@code functionResponse} parts, Responses
 * {@code function_call} and {@code function_call_output} items).
 *
 * @param id the call's id as the server sent it ({@code call_…}, {@code toolu_…}); Gemini may send
 *     none, then a client-made one that only this conversation uses
 * @param name the function called
 * @param arguments the arguments, JSON text as received; null on a tool result
 */
public record ToolCall(String id, String name, String arguments) {
  public ToolCall {
    Objects.requireNonNull(id, "id");
    Objects.requireNonNull(name, "name");
  }
}

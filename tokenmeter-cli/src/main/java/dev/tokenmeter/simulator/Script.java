package dev.tokenmeter.simulator;

/**
 * Scripted answers: a hook that lets a test decide what one request is answered with, instead of
 * the simulator's own generated text (the public face is {@code dev.tokenmeter.api.Simulator}).
 * The timing, framing and token accounting stay the simulator's: a scripted text is streamed at
 * the configured TTFT and ITL, in the API's own wire format, and counted in {@code usage}.
 *
 * <p>Both methods are called on the connection's event loop, so they must be quick and must not
 * block; implementations must be thread-safe (several event loops may call at once).
 */
public interface Script {

  /**
   * The answer to {@code request}, or null for the simulator's own (generated text, or a tool
   * call when the request's tools ask for one, docs/SIM-SERVE.md, "Tool calls in `sim serve`").
   */
  Scripted answer(Incoming request);

  /** Told once per generation request answered: what it was, and what was sent back. */
  default void served(Served served) {}

  /**
   * A generation request as received.
   *
   * @param api the endpoint it came to
   * @param path the request path, e.g. {@code /v1/chat/completions}
   * @param body the request body, UTF-8
   */
  record Incoming(GenerationRequest.Api api, String path, String body) {}

  /**
   * What one request was answered with.
   *
   * @param request the request
   * @param status the HTTP status sent (200, a rejection's 4xx, a scripted or injected error)
   * @param promptTokens the server's count of prompt tokens ({@code usage.prompt_tokens}); 0 when
   *     rejected before counting
   * @param completionTokens the output tokens planned for the response ({@code
   *     usage.completion_tokens} of a response that ran to its end); 0 for an error
   * @param scripted whether a scripted answer (not the simulator's own) was sent
   */
  record Served(Incoming request, int status, int promptTokens, int completionTokens, boolean scripted) {}
}

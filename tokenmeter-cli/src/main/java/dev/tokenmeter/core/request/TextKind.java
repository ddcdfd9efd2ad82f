package dev.tokenmeter.core.request;

/** Which kind of generated text a stream delta carries. All three are output tokens. */
public enum TextKind {
  /** The answer ({@code delta.content}, {@code choices[].text}). */
  CONTENT,
  /** Reasoning ({@code delta.reasoning_content} or {@code delta.reasoning}). */
  REASONING,
  /** Tool call arguments ({@code delta.tool_calls[].function.arguments}). */
  TOOL_CALL
}

package dev.tokenmeter.core.request;

/** Which client-side deadline ended a request. */
public enum TimeoutKind {
  /** No generated token within {@code --timeout-first-token} of the send. */
  FIRST_TOKEN,
  /** No stream item (token, usage, finish) for {@code --timeout-idle} once the response started. */
  IDLE,
  /** The whole exchange took longer than {@code --timeout-total}. */
  TOTAL
}

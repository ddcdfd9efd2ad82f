package dev.tokenmeter.core.request;

/**
 * How a request ended. Exactly one per request. Everything but {@link Completed} is a failure and
 * carries its {@link ErrorClass}.
 */
public sealed interface Outcome {

  /** The class a failure is counted in; {@code null} for {@link Completed}. */
  ErrorClass errorClass();

  /** The longest {@link #description()}: a server's error body beyond it is cut, with "...". */
  int MAX_DESCRIPTION_CHARS = 2000;

  /**
   * One line on how it failed, as requests.jsonl and the proxy's ledger both write it, at most
   * {@link #MAX_DESCRIPTION_CHARS} characters; null for {@link Completed}.
   */
  default String description() {
    String d = fullDescription();
    return d == null || d.length() <= MAX_DESCRIPTION_CHARS ? d : d.substring(0, MAX_DESCRIPTION_CHARS - 3) + "...";
  }

  private String fullDescription() {
    return switch (this) {
      case Completed c -> null;
      case ConnectFailed c -> c.message();
      case HttpError h -> "HTTP " + h.status() + (h.body().isEmpty() ? "" : ": " + h.body());
      case StreamError e -> e.message();
      case ProtocolError p -> p.message();
      case Truncated t -> t.message();
      case TimedOut t -> "timed out: " + t.kind().name().toLowerCase(java.util.Locale.ROOT);
      case ContentFiltered f -> "the server stopped the answer on a content policy (finish reason " + f.finishReason() + ")";
      case Cancelled c -> c.reason();
    };
  }

  /**
   * The failure of a stream that carried an error object: its message, or "error event in stream"
   * when the server gave none (null or empty), for the client and the proxy alike.
   */
  static Outcome streamError(String messageOrNull) {
    return new StreamError(messageOrNull == null || messageOrNull.isEmpty() ? "error event in stream" : messageOrNull);
  }

  /** True only for {@link Completed}. */
  default boolean succeeded() {
    return this instanceof Completed;
  }

  /**
   * How a response that ended normally counts: {@link ContentFiltered} when its finish reason is a
   * content-policy stop ({@link FinishClass#CONTENT_FILTER}), else {@link Completed}.
   */
  static Outcome ended(String finishReason) {
    return FinishClass.of(finishReason) == FinishClass.CONTENT_FILTER
        ? new ContentFiltered(finishReason)
        : new Completed(finishReason);
  }

  /** The response ended normally. {@code finishReason} is null when the server sent none. */
  record Completed(String finishReason) implements Outcome {
    @Override
    public ErrorClass errorClass() {
      return null;
    }
  }

  /** No connection could be made (refused, DNS, TLS, connect timeout). */
  record ConnectFailed(String message) implements Outcome {
    @Override
    public ErrorClass errorClass() {
      return ErrorClass.CONNECT;
    }
  }

  /** The server answered with a non-2xx status. {@code body} is a bounded prefix of the body. */
  record HttpError(int status, String body) implements Outcome {
    @Override
    public ErrorClass errorClass() {
      return ErrorClass.ofHttpStatus(status);
    }
  }

  /** The server sent an error object inside a 200 stream. */
  record StreamError(String message) implements Outcome {
    @Override
    public ErrorClass errorClass() {
      return ErrorClass.STREAM_ERROR;
    }
  }

  /** The response was not what the protocol says (malformed SSE or JSON, wrong content type). */
  record ProtocolError(String message) implements Outcome {
    @Override
    public ErrorClass errorClass() {
      return ErrorClass.PROTOCOL;
    }
  }

  /** The response ended early: the connection closed before the stream's end was seen. */
  record Truncated(String message) implements Outcome {
    @Override
    public ErrorClass errorClass() {
      return ErrorClass.TRUNCATED;
    }
  }

  /** A client-side deadline passed. */
  record TimedOut(TimeoutKind kind) implements Outcome {
    @Override
    public ErrorClass errorClass() {
      return switch (kind) {
        case FIRST_TOKEN -> ErrorClass.TIMEOUT_FIRST_TOKEN;
        case IDLE -> ErrorClass.TIMEOUT_IDLE;
        case TOTAL -> ErrorClass.TIMEOUT_TOTAL;
      };
    }
  }

  /**
   * The server ended the answer on a content policy ({@code finishReason}: OpenAI {@code
   * content_filter}, Anthropic {@code refusal} as {@code content_filter}, Gemini {@code safety},
   * ...): the stream was whole, but the user did not get the answer asked for, so it is a failure,
   * out of goodput.
   */
  record ContentFiltered(String finishReason) implements Outcome {
    @Override
    public ErrorClass errorClass() {
      return ErrorClass.CONTENT_FILTER;
    }
  }

  /**
   * The client gave up on it: the stage ended, the user pressed Ctrl-C, or (code completion) the
   * next keystroke's request superseded it or it ran past {@code --cancel-after}.
   */
  record Cancelled(String reason) implements Outcome {
    /** The reason of a request superseded by the same user's next keystroke's request. */
    public static final String SUPERSEDED = "superseded by the next keystroke's request";

    /** The reason of a request cancelled by the {@code --cancel-after} rule. */
    public static final String CANCEL_AFTER = "cancelled by --cancel-after";

    @Override
    public ErrorClass errorClass() {
      return ErrorClass.CANCELLED;
    }
  }
}

package dev.tokenmeter.core.request;

/**
 * Everything measured about one request, as it happens: the timestamps of the measurement
 * model, each text chunk's arrival, usage, and the outcome. Filled by the engine from endpoint
 * callbacks; read by the metric math once {@link #outcome()} is set.
 *
 * <p>All times are nanoseconds from the run's {@code Ticker}; -1 means "did not happen". Not
 * thread-safe: one request's timeline is only touched by the event loop that runs it.
 *
 * <pre>
 *  scheduled  sent      firstToken                lastToken  done
 *      |-------|-----------|-----|-----|-----|------|---------|
 *      ^ plan  ^ request   ^ chunk arrivals (chunks())        ^ finish_reason seen
 *              written
 * </pre>
 */
public final class RequestTimeline {
  private final long id;
  private final int stage;
  private final Phase phase;
  private final RequestSpec spec;
  private final long scheduledNanos;

  private long connectStartNanos = -1;
  private long connectedNanos = -1;
  private long sentNanos = -1;
  private long headersNanos = -1;
  private int httpStatus = -1;
  private long firstTokenNanos = -1;
  private long firstContentNanos = -1;
  private long lastTokenNanos = -1;
  private long doneNanos = -1;
  private long endNanos = -1;

  private final ChunkLog chunks = new ChunkLog();
  private final AnswerText content = new AnswerText();
  private long reasoningChars;
  /** The tool calls' ids, names and arguments; null until the first tool call (most answers make none). */
  private ToolCalls toolCalls;

  private int usagePromptTokens = -1;
  private int usageCompletionTokens = -1;
  private int usageReasoningTokens = -1;
  private int usageCachedTokens = -1;
  private String finishReason;
  private boolean sawDone;
  private Outcome outcome;

  public RequestTimeline(RequestSpec spec, int stage, Phase phase, long scheduledNanos) {
    this.id = spec.id();
    this.spec = spec;
    this.stage = stage;
    this.phase = phase;
    this.scheduledNanos = scheduledNanos;
  }

  // ---- recording (event loop only) ----

  /** A new connection was opened for this request: connect started and finished at these times. */
  public void connected(long startNanos, long doneNanos) {
    this.connectStartNanos = startNanos;
    this.connectedNanos = doneNanos;
  }

  /** The request's last byte was handed to the socket. */
  public void sent(long nanos) {
    this.sentNanos = nanos;
  }

  /** Response headers arrived with this status. */
  public void headers(int status, long nanos) {
    this.httpStatus = status;
    this.headersNanos = nanos;
  }

  /**
   * A stream item arrived at {@code nanos}. Text items are chunks; the first one sets {@code
   * firstToken}. A finish reason sets {@code done}.
   */
  public void item(StreamItem item, long nanos) {
    switch (item) {
      case StreamItem.Text t -> text(t, nanos);
      case StreamItem.Finish f -> {
        finishReason = f.reason();
        doneNanos = nanos;
      }
      case StreamItem.Usage u -> {
        usagePromptTokens = u.promptTokens();
        usageCompletionTokens = u.completionTokens();
        usageReasoningTokens = u.reasoningTokens();
        usageCachedTokens = u.cachedTokens();
      }
      case StreamItem.Done d -> sawDone = true;
      case StreamItem.Role r -> {}
      case StreamItem.ErrorEvent e -> {}
      case StreamItem.ToolCallStart c -> calls().start(c.id(), c.name(), c.index());
    }
  }

  private ToolCalls calls() {
    if (toolCalls == null) {
      toolCalls = new ToolCalls();
    }
    return toolCalls;
  }

  private void text(StreamItem.Text t, long nanos) {
    chunks.append(nanos, t.text().length(), t.kind());
    if (firstTokenNanos < 0) {
      firstTokenNanos = nanos;
    }
    if (t.kind() == TextKind.CONTENT) {
      if (firstContentNanos < 0) {
        firstContentNanos = nanos;
      }
      content.append(t.text());
    } else {
      reasoningChars += t.text().length();
      if (t.kind() == TextKind.TOOL_CALL) {
        calls().arguments(t.text());
      }
    }
    lastTokenNanos = nanos;
  }

  /**
   * The request ended with {@code outcome} at {@code nanos} (end of body, error or abort). If no
   * finish reason was seen, {@code done} falls back to the last token, else to this time.
   */
  public void end(Outcome outcome, long nanos) {
    if (this.outcome != null) {
      return;
    }
    this.outcome = outcome;
    this.endNanos = nanos;
    if (doneNanos < 0) {
      doneNanos = lastTokenNanos >= 0 ? lastTokenNanos : nanos;
    }
  }

  // ---- reading ----

  public long id() {
    return id;
  }

  public int stage() {
    return stage;
  }

  public Phase phase() {
    return phase;
  }

  public RequestSpec spec() {
    return spec;
  }

  public long scheduledNanos() {
    return scheduledNanos;
  }

  /** When a new connection's connect started, -1 when a kept-alive connection was reused. */
  public long connectStartNanos() {
    return connectStartNanos;
  }

  /** When a new connection was established, -1 when a kept-alive connection was reused. */
  public long connectedNanos() {
    return connectedNanos;
  }

  public long sentNanos() {
    return sentNanos;
  }

  public long headersNanos() {
    return headersNanos;
  }

  /** HTTP status, -1 when no response headers arrived. */
  public int httpStatus() {
    return httpStatus;
  }

  /** First chunk carrying generated text of any kind (content, reasoning or tool call). */
  public long firstTokenNanos() {
    return firstTokenNanos;
  }

  /** First chunk carrying answer text ({@link TextKind#CONTENT}). */
  public long firstContentNanos() {
    return firstContentNanos;
  }

  public long lastTokenNanos() {
    return lastTokenNanos;
  }

  /**
   * When generation finished: the chunk carrying {@code finish_reason}; without one, the last
   * token; without tokens, the end. Usage-only chunks and {@code [DONE]} do not move it.
   */
  public long doneNanos() {
    return doneNanos;
  }

  /** When the exchange ended (end of body, error or abort). */
  public long endNanos() {
    return endNanos;
  }

  /** Number of text-carrying chunks. */
  public int chunkCount() {
    return chunks.count();
  }

  /**
   * The text chunks in arrival order: walk them with {@link ChunkLog#cursor()}. Read it only once
   * the request ended, or from the event loop that runs it.
   */
  public ChunkLog chunks() {
    return chunks;
  }

  /**
   * Arrival of text chunk {@code i}, {@code 0 <= i < chunkCount()}. Reads the chunks from the
   * first: to walk them all, use {@link #chunks()}.
   */
  public long chunkNanos(int i) {
    return chunks.nanos(i);
  }

  /** UTF-16 chars of text chunk {@code i}; reads the chunks from the first. */
  public int chunkChars(int i) {
    return chunks.chars(i);
  }

  /** Kind of text chunk {@code i}; reads the chunks from the first. */
  public TextKind chunkKind(int i) {
    return chunks.kind(i);
  }

  /** The answer text received so far (content only, not reasoning). */
  public CharSequence content() {
    return content;
  }

  /**
   * The tool calls the answer made, in order, each with the id and name the server sent and its
   * arguments as received; empty when it made none.
   */
  public java.util.List<ToolCall> toolCalls() {
    return toolCalls == null ? java.util.List.of() : toolCalls.calls();
  }

  /** How many tool calls the answer made (parallel calls: several); 0 when none. */
  public int toolCallCount() {
    return toolCalls == null ? 0 : toolCalls.ids.size();
  }

  /** Reasoning and tool-call characters received (not content). */
  public long reasoningChars() {
    return reasoningChars;
  }

  public int usagePromptTokens() {
    return usagePromptTokens;
  }

  public int usageCompletionTokens() {
    return usageCompletionTokens;
  }

  /**
   * Prompt tokens the server said it served from its prefix cache ({@code
   * usage.prompt_tokens_details.cached_tokens}, Anthropic's cache read tokens, Gemini's cached
   * content tokens), -1 when not reported.
   */
  public int usageCachedTokens() {
    return usageCachedTokens;
  }

  public int usageReasoningTokens() {
    return usageReasoningTokens;
  }

  public String finishReason() {
    return finishReason;
  }

  public boolean sawDone() {
    return sawDone;
  }

  /** The outcome, or null while the request is in flight. */
  public Outcome outcome() {
    return outcome;
  }

  /**
   * The tool calls of one answer as they arrive: a start (id, name, the API's key), then argument
   * pieces, which belong to the current call: the one last started, or the one whose key a start
   * without id and name named (arguments with no start, as an API that names no call sends them,
   * make a call without id or name). Calls keep the order their first item came in. Allocated only
   * when an answer has a tool call.
   */
  private static final class ToolCalls {
    private final java.util.List<String> ids = new java.util.ArrayList<>(1);
    private final java.util.List<String> names = new java.util.ArrayList<>(1);
    private final java.util.List<StringBuilder> arguments = new java.util.ArrayList<>(1);
    private final java.util.List<Integer> keys = new java.util.ArrayList<>(1);
    private int current = -1;

    void start(String id, String name, int key) {
      int at = key < 0 ? -1 : keys.indexOf(key);
      if (at >= 0) {
        current = at; // a later delta of a call already started: its id or name only where it had none
        if (id != null && ids.get(at).isEmpty()) {
          ids.set(at, id);
        }
        if (name != null && names.get(at).isEmpty()) {
          names.set(at, name);
        }
        return;
      }
      ids.add(id == null ? "" : id);
      names.add(name == null ? "" : name);
      arguments.add(new StringBuilder());
      keys.add(key);
      current = ids.size() - 1;
    }

    void arguments(String piece) {
      if (current < 0) {
        start(null, null, -1);
      }
      arguments.get(current).append(piece);
    }

    java.util.List<ToolCall> calls() {
      java.util.List<ToolCall> out = new java.util.ArrayList<>(ids.size());
      for (int i = 0; i < ids.size(); i++) {
        out.add(new ToolCall(ids.get(i), names.get(i), arguments.get(i).toString()));
      }
      return out;
    }
  }
}

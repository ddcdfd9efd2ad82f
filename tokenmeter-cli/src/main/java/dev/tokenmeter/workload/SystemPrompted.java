package dev.tokenmeter.workload;

import dev.tokenmeter.core.loadgen.RequestSource;
import dev.tokenmeter.core.request.Message;
import dev.tokenmeter.core.request.Prompt;
import dev.tokenmeter.core.request.RequestSpec;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * Another source's requests with a system prompt put first: a text prompt becomes a chat of the
 * system message and one user message, a chat gets the system message before its own (the
 * completions API joins them, one per line). The client's prompt-token count grows by the system
 * prompt's count (by the same estimator as the workload's, so exact stays exact); an unknown count
 * (-1) stays unknown. Everything else (id, max_tokens) is the wrapped source's, so two variants
 * over the same seed differ only in the system prompt. Thread-safe when the wrapped source is;
 * {@link #next} allocates one message list per request.
 */
public final class SystemPrompted implements RequestSource {
  private final RequestSource inner;
  private final Message system;
  private final int systemTokens;

  /** {@code inner}'s requests after the system prompt {@code text}, counted by {@code estimator}. */
  public SystemPrompted(RequestSource inner, String text, TokenEstimator estimator) {
    this.inner = Objects.requireNonNull(inner, "inner");
    this.system = new Message("system", text);
    this.systemTokens = estimator.count(text);
  }

  @Override
  public RequestSpec next(long id) {
    RequestSpec s = inner.next(id);
    List<Message> messages = new ArrayList<>();
    messages.add(system);
    switch (s.prompt()) {
      case Prompt.Text t -> messages.add(new Message("user", t.text()));
      case Prompt.Infill f -> messages.add(new Message("user", f.asText()));
      case Prompt.Chat c -> messages.addAll(c.messages());
    }
    int tokens = s.promptTokens() < 0 ? -1 : s.promptTokens() + systemTokens;
    return new RequestSpec(s.id(), new Prompt.Chat(messages), tokens, s.promptTokensExact(), s.maxTokens());
  }

  /** Tokens of the system prompt, by the estimator given. */
  public int systemTokens() {
    return systemTokens;
  }
}

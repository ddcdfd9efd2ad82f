package dev.tokenmeter.examples.springai;

import java.util.concurrent.atomic.AtomicLong;
import org.springframework.ai.chat.client.ChatClient;
import org.springframework.ai.chat.metadata.Usage;
import org.springframework.ai.chat.model.ChatResponse;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.stereotype.Service;
import reactor.core.publisher.Flux;

/**
 * A streaming chat service: streams the answer, lets the model call {@link WeatherTools}, and
 * refuses once its token budget (counted from the provider's usage) is spent. A 429 is retried by
 * the OpenAI client under Spring AI, after the server's {@code Retry-After}
 * ({@code spring.ai.openai.max-retries}, 3 by default).
 */
@Service
public class ChatService {
  private final ChatClient chat;
  private final WeatherTools weather;
  private final long budgetTokens;
  private final AtomicLong spent = new AtomicLong();
  private final AtomicLong lastPrompt = new AtomicLong();
  private final AtomicLong lastCompletion = new AtomicLong();

  public ChatService(ChatClient.Builder builder, WeatherTools weather, @Value("${chat.budget-tokens}") long budgetTokens) {
    this.chat = builder.defaultSystem("You are a concise assistant. Use get_weather for weather questions.").build();
    this.weather = weather;
    this.budgetTokens = budgetTokens;
  }

  /** The service's budget is spent: no model call is made. */
  public static final class BudgetExceededException extends RuntimeException {
    BudgetExceededException(long spent, long budget) {
      super("token budget spent: " + spent + " of " + budget + " tokens");
    }
  }

  /** The answer to {@code question}, piece by piece as the model streams it. */
  public Flux<String> stream(String question) {
    if (spent.get() >= budgetTokens) {
      return Flux.error(new BudgetExceededException(spent.get(), budgetTokens));
    }
    return chat.prompt().user(question).tools(weather).stream().chatResponse()
        .doOnNext(this::count)
        .filter(r -> r.getResult() != null && r.getResult().getOutput().getText() != null)
        .map(r -> r.getResult().getOutput().getText())
        .filter(t -> !t.isEmpty());
  }

  private void count(ChatResponse r) {
    Usage usage = r.getMetadata().getUsage();
    if (usage != null && usage.getTotalTokens() != null && usage.getTotalTokens() > 0) {
      lastPrompt.set(usage.getPromptTokens());
      lastCompletion.set(usage.getCompletionTokens());
      spent.addAndGet(usage.getTotalTokens());
    }
  }

  /** Tokens spent so far. */
  public long spentTokens() {
    return spent.get();
  }

  /** Prompt and completion tokens of the last model call's usage. */
  public long[] lastUsage() {
    return new long[] {lastPrompt.get(), lastCompletion.get()};
  }
}

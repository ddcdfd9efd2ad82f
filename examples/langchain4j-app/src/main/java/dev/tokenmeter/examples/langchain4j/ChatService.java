package dev.tokenmeter.examples.langchain4j;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.langchain4j.agent.tool.ToolExecutionRequest;
import dev.langchain4j.data.message.AiMessage;
import dev.langchain4j.data.message.ChatMessage;
import dev.langchain4j.data.message.SystemMessage;
import dev.langchain4j.data.message.ToolExecutionResultMessage;
import dev.langchain4j.data.message.UserMessage;
import dev.langchain4j.exception.RateLimitException;
import dev.langchain4j.model.chat.StreamingChatModel;
import dev.langchain4j.model.chat.request.ChatRequest;
import dev.langchain4j.model.chat.response.ChatResponse;
import dev.langchain4j.model.chat.response.StreamingChatResponseHandler;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;

/**
 * A streaming chat service: answers a question token by token, calls the weather tool when the
 * model asks for it, retries a rate-limited call after a pause, and stops when its token budget is
 * spent. Thread-safe.
 */
public final class ChatService {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final int MAX_TOOL_ROUNDS = 3;
  private static final int MAX_ATTEMPTS = 3;

  private final StreamingChatModel model;
  private final WeatherTool weather;
  private final long budgetTokens;
  private final int maxAnswerTokens;
  private final Duration retryPause;
  private final AtomicLong spentTokens = new AtomicLong();

  /**
   * @param budgetTokens tokens (prompt and output, as the provider's usage counts them) the service may spend in all
   * @param maxAnswerTokens output tokens of one model call at most
   * @param retryPause the wait before calling again after a 429
   */
  public ChatService(StreamingChatModel model, WeatherTool weather, long budgetTokens, int maxAnswerTokens,
      Duration retryPause) {
    this.model = model;
    this.weather = weather;
    this.budgetTokens = budgetTokens;
    this.maxAnswerTokens = maxAnswerTokens;
    this.retryPause = retryPause;
  }

  /** The answer, with the usage of every model call it took and the retries. */
  public record Reply(String text, long inputTokens, long outputTokens, int modelCalls, int retries) {}

  /** The service's budget is spent: no model call is made. */
  public static final class BudgetExceededException extends RuntimeException {
    BudgetExceededException(long spent, long budget) {
      super("token budget spent: " + spent + " of " + budget + " tokens");
    }
  }

  /** Tokens spent so far. */
  public long spentTokens() {
    return spentTokens.get();
  }

  /** Answers {@code question}, handing each piece of the answer to {@code onToken} as it arrives. */
  public Reply chat(String question, Consumer<String> onToken) {
    List<ChatMessage> messages = new ArrayList<>();
    messages.add(SystemMessage.from("You are a concise assistant. Use get_weather for weather questions."));
    messages.add(UserMessage.from(question));
    long in = 0;
    long out = 0;
    int calls = 0;
    int retries = 0;
    for (int round = 0; round <= MAX_TOOL_ROUNDS; round++) {
      long left = budgetTokens - spentTokens.get();
      if (left <= 0) {
        throw new BudgetExceededException(spentTokens.get(), budgetTokens);
      }
      ChatRequest request = ChatRequest.builder().messages(messages).toolSpecifications(WeatherTool.SPEC)
          .maxOutputTokens((int) Math.min(maxAnswerTokens, left)).build();
      ChatResponse response = null;
      for (int attempt = 1; response == null; attempt++) {
        try {
          response = stream(request, onToken);
        } catch (RateLimitException e) {
          if (attempt == MAX_ATTEMPTS) {
            throw e;
          }
          retries++;
          sleep(retryPause);
        }
      }
      calls++;
      if (response.tokenUsage() != null) {
        in += response.tokenUsage().inputTokenCount();
        out += response.tokenUsage().outputTokenCount();
        spentTokens.addAndGet(response.tokenUsage().totalTokenCount());
      }
      AiMessage ai = response.aiMessage();
      if (!ai.hasToolExecutionRequests()) {
        return new Reply(ai.text(), in, out, calls, retries);
      }
      messages.add(ai);
      for (ToolExecutionRequest call : ai.toolExecutionRequests()) {
        messages.add(ToolExecutionResultMessage.from(call, run(call)));
      }
    }
    throw new IllegalStateException("the model asked for tools " + MAX_TOOL_ROUNDS + " times in a row");
  }

  private String run(ToolExecutionRequest call) {
    if (!call.name().equals(WeatherTool.SPEC.name())) {
      return "unknown tool " + call.name();
    }
    try {
      JsonNode args = JSON.readTree(call.arguments());
      return weather.weather(args.path("city").asText());
    } catch (java.io.IOException e) {
      return "bad arguments: " + call.arguments();
    }
  }

  /** One streamed model call; a 429 surfaces as {@link RateLimitException}. */
  private ChatResponse stream(ChatRequest request, Consumer<String> onToken) {
    CompletableFuture<ChatResponse> done = new CompletableFuture<>();
    model.chat(request, new StreamingChatResponseHandler() {
      @Override
      public void onPartialResponse(String token) {
        onToken.accept(token);
      }

      @Override
      public void onCompleteResponse(ChatResponse response) {
        done.complete(response);
      }

      @Override
      public void onError(Throwable error) {
        done.completeExceptionally(error);
      }
    });
    try {
      return done.get();
    } catch (ExecutionException e) {
      Throwable cause = e.getCause();
      if (cause instanceof RateLimitException r) {
        throw r;
      }
      if (cause instanceof dev.langchain4j.exception.HttpException h && h.statusCode() == 429) {
        throw new RateLimitException(h);
      }
      throw cause instanceof RuntimeException r ? r : new IllegalStateException(cause);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted", e);
    }
  }

  private static void sleep(Duration d) {
    try {
      Thread.sleep(d);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted", e);
    }
  }
}

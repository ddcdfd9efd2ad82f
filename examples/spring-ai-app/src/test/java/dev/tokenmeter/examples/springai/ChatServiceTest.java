package dev.tokenmeter.examples.springai;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tokenmeter.api.Answer;
import dev.tokenmeter.api.LoadResult;
import dev.tokenmeter.api.LoadTest;
import dev.tokenmeter.api.ReceivedRequest;
import dev.tokenmeter.api.Simulator;
import dev.tokenmeter.junit5.LoadTests;
import dev.tokenmeter.junit5.TokenmeterSimulator;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalServerPort;

/**
 * The Spring AI chat service against tokenmeter's simulator. The extension starts the simulator
 * before Spring builds the context and sets {@code spring.ai.openai.base-url}, so the application
 * needs no test configuration beyond an API key.
 */
@TokenmeterSimulator(ttftMillis = 20, itlMillis = 2, model = "gpt-4o-mini")
@SpringBootTest(webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT,
    properties = {"spring.ai.openai.api-key=test", "chat.budget-tokens=1000000000000"})
class ChatServiceTest {
  // The application's own budget is set out of reach here: the load test below spends as many tokens
  // as the machine's speed allows, and the context (and so the service) is shared by every test.
  // The budget itself is tested on a service of its own (aSpentBudgetMakesNoModelCall).
  @Autowired ChatService service;
  @Autowired WeatherTools weather;
  @Autowired org.springframework.ai.chat.client.ChatClient.Builder chatClients;
  @LocalServerPort int port;

  @BeforeEach
  void forgetTheLastTest(Simulator sim) {
    sim.reset();
  }

  @Test
  void theAnswerArrivesStreamed(Simulator sim) {
    sim.answer(Answer.text("Streaming keeps users reading while the model is still writing."));
    List<String> pieces = service.stream("Why stream?").collectList().block();
    assertEquals("Streaming keeps users reading while the model is still writing.", String.join("", pieces));
    assertTrue(pieces.size() > 5, "answer arrived in " + pieces.size() + " pieces");
  }

  @Test
  void theToolCallIsExecuted(Simulator sim) {
    sim.enqueue(Answer.toolCall("get_weather", "{\"city\":\"Paris\"}"), Answer.text("It is 21 °C and sunny in Paris."));
    String answer = String.join("", service.stream("What is the weather in Paris?").collectList().block());
    assertEquals("It is 21 °C and sunny in Paris.", answer);
    assertTrue(weather.calls().contains("Paris"), "tool calls: " + weather.calls());
    assertTrue(sim.received().get(1).body().contains("21 °C, sunny"), "the tool's result went back to the model");
  }

  @Test
  void tokenUsageIsWhatTheSimulatorSays(Simulator sim) {
    sim.answer(Answer.text("Four score and seven years ago."));
    long before = service.spentTokens();
    service.stream("Quote Lincoln.").blockLast();
    ReceivedRequest r = sim.received().get(0);
    assertEquals(r.promptTokens(), service.lastUsage()[0]);
    assertEquals(r.completionTokens(), service.lastUsage()[1]);
    assertEquals(r.promptTokens() + r.completionTokens(), service.spentTokens() - before);
  }

  @Test
  void aSpentBudgetMakesNoModelCall(Simulator sim) {
    ChatService small = new ChatService(chatClients, weather, 20);
    sim.answer(Answer.text("A long answer that spends all of a very small budget of tokens in one go."));
    small.stream("Spend it.").blockLast();
    assertTrue(small.spentTokens() >= 20, "spent " + small.spentTokens());
    ChatService.BudgetExceededException e = org.junit.jupiter.api.Assertions.assertThrows(
        ChatService.BudgetExceededException.class, () -> small.stream("Once more?").blockLast());
    assertTrue(e.getMessage().contains("of 20 tokens"), e.getMessage());
    assertEquals(1, sim.received().size(), "no model call once the budget is spent");
  }

  @Test
  void aRateLimitIsRetriedAfterRetryAfter(Simulator sim) {
    sim.enqueue(Answer.rateLimited(Duration.ofSeconds(1)));
    sim.answer(Answer.text("Worth the wait."));
    long start = System.nanoTime();
    assertEquals("Worth the wait.", String.join("", service.stream("Hello?").collectList().block()));
    assertEquals(List.of(429, 200), sim.received().stream().map(ReceivedRequest::status).toList());
    assertTrue(System.nanoTime() - start >= 900_000_000L, "the client waited for Retry-After: 1");
  }

  @Test
  void theAppsOwnEndpointMeetsItsSlo(Simulator sim) {
    sim.answer(Answer.text("A short answer for the load test."));
    LoadResult r = LoadTests.assertSlo(LoadTest.against("http://127.0.0.1:" + port).model(ChatController.MODEL)
        .concurrency(4).duration(Duration.ofSeconds(5)).warmup(Duration.ofSeconds(3)), "ttft.p99<=800ms");
    assertEquals(0, r.failed(), r.describe());
  }
}

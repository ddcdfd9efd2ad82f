package dev.tokenmeter.examples.langchain4j;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.langchain4j.model.anthropic.AnthropicStreamingChatModel;
import dev.langchain4j.model.openai.OpenAiStreamingChatModel;
import dev.tokenmeter.api.Answer;
import dev.tokenmeter.api.Api;
import dev.tokenmeter.api.LoadResult;
import dev.tokenmeter.api.LoadTest;
import dev.tokenmeter.api.ReceivedRequest;
import dev.tokenmeter.api.Simulator;
import dev.tokenmeter.junit5.LoadTests;
import dev.tokenmeter.junit5.TokenmeterSimulator;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** The chat service against tokenmeter's simulator, one per class, speaking OpenAI. */
@TokenmeterSimulator(ttftMillis = 20, itlMillis = 2)
class ChatServiceTest {
  private final WeatherTool weather = new WeatherTool();

  @BeforeEach
  void forgetTheLastTest(Simulator sim) {
    sim.reset();
  }

  private ChatService service(Simulator sim, long budget) {
    OpenAiStreamingChatModel model = OpenAiStreamingChatModel.builder()
        .baseUrl(System.getProperty("tokenmeter.simulator.base-url")) // set by the extension: sim.baseUrl()
        .apiKey("test").modelName(sim.model()).build();
    return new ChatService(model, weather, budget, 256, Duration.ofMillis(200));
  }

  @Test
  void theAnswerArrivesStreamed(Simulator sim) {
    sim.answer(Answer.text("Streaming keeps users reading while the model is still writing."));
    List<String> tokens = new ArrayList<>();
    ChatService.Reply reply = service(sim, 10_000).chat("Why stream?", tokens::add);
    assertEquals("Streaming keeps users reading while the model is still writing.", reply.text());
    assertTrue(tokens.size() > 5, "answer arrived in " + tokens.size() + " pieces");
    assertEquals(reply.text(), String.join("", tokens));
  }

  @Test
  void theToolCallIsExecutedAndItsResultSentBack(Simulator sim) {
    sim.enqueue(Answer.toolCall("get_weather", "{\"city\":\"Paris\"}"), Answer.text("It is 21 °C and sunny in Paris."));
    ChatService.Reply reply = service(sim, 10_000).chat("What is the weather in Paris?", t -> {});
    assertEquals(List.of("Paris"), weather.calls());
    assertEquals("It is 21 °C and sunny in Paris.", reply.text());
    assertEquals(2, reply.modelCalls());
    ReceivedRequest second = sim.received().get(1);
    assertTrue(second.body().contains("21 °C, sunny"), "the tool's result went back to the model: " + second.body());
  }

  @Test
  void tokenUsageIsWhatTheSimulatorSays(Simulator sim) {
    sim.answer(Answer.text("Four score and seven years ago."));
    ChatService service = service(sim, 10_000);
    ChatService.Reply reply = service.chat("Quote Lincoln.", t -> {});
    ReceivedRequest r = sim.received().get(0);
    assertEquals(r.completionTokens(), reply.outputTokens());
    assertEquals(r.promptTokens(), reply.inputTokens());
    assertEquals(r.promptTokens() + r.completionTokens(), service.spentTokens());
  }

  @Test
  void theTokenBudgetStopsTheService(Simulator sim) {
    sim.answer(Answer.text("A long answer that spends most of a very small budget of tokens in one go."));
    ChatService service = service(sim, 40);
    service.chat("Spend it.", t -> {});
    assertThrows(ChatService.BudgetExceededException.class, () -> service.chat("Again.", t -> {}));
    assertEquals(1, sim.received().size(), "no model call once the budget is spent");
  }

  @Test
  void aRateLimitIsRetriedAfterAPause(Simulator sim) {
    sim.enqueue(Answer.rateLimited(Duration.ofSeconds(1)));
    sim.answer(Answer.text("Worth the wait."));
    ChatService.Reply reply = service(sim, 10_000).chat("Hello?", t -> {});
    assertEquals("Worth the wait.", reply.text());
    assertEquals(1, reply.retries());
    assertEquals(List.of(429, 200), sim.received().stream().map(ReceivedRequest::status).toList());
  }

  @Test
  void theAppsOwnEndpointMeetsItsSlo(Simulator sim) throws Exception {
    sim.answer(Answer.text("A short answer for the load test."));
    try (ChatServer app = ChatServer.start(service(sim, Long.MAX_VALUE), 0)) {
      LoadResult r = LoadTests.assertSlo(LoadTest.against(app.url()).model(ChatServer.MODEL).concurrency(4)
          .duration(Duration.ofSeconds(3)).warmup(Duration.ofSeconds(1)), "ttft.p99<=800ms");
      assertTrue(r.completed() > 0, r.describe());
      assertEquals(0, r.failed(), r.describe());
    }
  }

  /** The same service on Anthropic's API: only the model changes. */
  @Test
  void anthropicStreamsTheSameWay() {
    try (Simulator anthropic = Simulator.builder().api(Api.ANTHROPIC).ttft(Duration.ofMillis(20))
        .itl(Duration.ofMillis(2)).start()) {
      anthropic.answer(Answer.text("Bonjour from Claude's wire format."));
      AnthropicStreamingChatModel model = AnthropicStreamingChatModel.builder().baseUrl(anthropic.baseUrl())
          .apiKey("test").modelName(anthropic.model()).maxTokens(256).build();
      List<String> tokens = new ArrayList<>();
      ChatService.Reply reply = new ChatService(model, weather, 10_000, 256, Duration.ofMillis(200))
          .chat("Say hello.", tokens::add);
      assertEquals("Bonjour from Claude's wire format.", reply.text());
      assertTrue(tokens.size() > 3);
      assertEquals(anthropic.received().get(0).completionTokens(), reply.outputTokens());
    }
  }
}

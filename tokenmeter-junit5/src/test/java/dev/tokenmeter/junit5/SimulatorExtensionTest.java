package dev.tokenmeter.junit5;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.platform.engine.discovery.DiscoverySelectors.selectClass;

import dev.tokenmeter.api.Answer;
import dev.tokenmeter.api.Api;
import dev.tokenmeter.api.Simulator;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.Test;
import org.junit.platform.testkit.engine.EngineTestKit;
import org.junit.platform.testkit.engine.Events;

/** The extension run on small test classes through JUnit's own engine test kit. */
class SimulatorExtensionTest {
  static final List<Simulator> SEEN = new CopyOnWriteArrayList<>();
  static final List<String> PROPERTIES = new CopyOnWriteArrayList<>();

  @TokenmeterSimulator(api = Api.ANTHROPIC, ttftMillis = 5, itlMillis = 1)
  @TestMethodOrder(MethodOrderer.MethodName.class)
  static class OnePerClass {
    @Test
    void first(Simulator sim) throws Exception {
      SEEN.add(sim);
      PROPERTIES.add(System.getProperty("spring.ai.anthropic.base-url"));
      PROPERTIES.add(System.getProperty("langchain4j.anthropic.chat-model.base-url"));
      sim.answer(Answer.text("Bonjour"));
      String body = HttpClient.newHttpClient().send(HttpRequest.newBuilder(URI.create(sim.baseUrl() + "/messages"))
          .POST(HttpRequest.BodyPublishers.ofString("{\"model\":\"tokenmeter-sim\",\"max_tokens\":32,"
              + "\"messages\":[{\"role\":\"user\",\"content\":\"hi\"}]}")).build(), HttpResponse.BodyHandlers.ofString()).body();
      assertThat(body).contains("\"text\":\"Bonjour\"");
    }

    @Test
    void second(Simulator sim) {
      SEEN.add(sim);
      assertThat(sim.received()).hasSize(1); // the class's simulator: what the first test sent is still there
    }
  }

  static class OnePerTest {
    @TokenmeterSimulator Simulator sim;

    @Test
    void a() {
      SEEN.add(sim);
    }

    @Test
    void b() {
      SEEN.add(sim);
    }
  }

  @TokenmeterSimulator(preset = "no-such-model@h100-sxm")
  static class UnknownPreset {
    @Test
    void never() {}
  }

  @TokenmeterSimulator(ttftMillis = 40, itlMillis = 1)
  static class SloMissed {
    @Test
    void tooSlow(Simulator sim) {
      sim.answer(Answer.text("a short answer of a few tokens"));
      LoadTests.assertSlo(dev.tokenmeter.api.LoadTest.against(sim.url()).model(sim.model()).concurrency(1)
          .duration(java.time.Duration.ofSeconds(1)).warmup(java.time.Duration.ZERO), "ttft.p99<=5ms");
    }
  }

  @AfterAll
  static void clear() {
    SEEN.clear();
  }

  @Test
  void aClassAnnotationStartsOneSimulatorForTheClassAndPointsThePropertiesAtIt() throws Exception {
    SEEN.clear();
    PROPERTIES.clear();
    Events events = run(OnePerClass.class);
    assertThat(failures(events)).isEmpty();
    events.assertStatistics(s -> s.succeeded(2));
    assertThat(SEEN).hasSize(2);
    assertThat(SEEN.get(0)).isSameAs(SEEN.get(1));
    String root = SEEN.get(0).url();
    assertThat(PROPERTIES).containsExactly(root, root + "/v1");
    assertThat(System.getProperty("spring.ai.anthropic.base-url")).as("restored after the class").isNull();
    assertThat(closed(root)).as("stopped after the class").isTrue();
  }

  @Test
  void anInstanceFieldGetsAFreshSimulatorPerTest() throws Exception {
    SEEN.clear();
    run(OnePerTest.class).assertStatistics(s -> s.succeeded(2));
    assertThat(SEEN).hasSize(2);
    assertThat(SEEN.get(0)).isNotSameAs(SEEN.get(1));
    assertThat(closed(SEEN.get(0).url())).isTrue();
    assertThat(closed(SEEN.get(1).url())).isTrue();
  }

  @Test
  void anUnknownPresetFailsTheClassWithTheListOfPresets() {
    Events events = EngineTestKit.engine("junit-jupiter").selectors(selectClass(UnknownPreset.class)).execute()
        .containerEvents();
    assertThat(events.failed().stream().map(e -> e.getPayload(org.junit.platform.engine.TestExecutionResult.class)
        .flatMap(org.junit.platform.engine.TestExecutionResult::getThrowable).map(Throwable::getMessage).orElse("")))
        .anySatisfy(m -> assertThat(m).contains("unknown model 'no-such-model'").contains("presets:"));
  }

  @Test
  void aMissedSloFailsTheTestWithTheFigures() {
    Events tests = run(SloMissed.class);
    tests.assertStatistics(s -> s.failed(1));
    String message = tests.failed().stream().findFirst().orElseThrow()
        .getPayload(org.junit.platform.engine.TestExecutionResult.class).orElseThrow().getThrowable().orElseThrow()
        .getMessage();
    assertThat(message).contains("SLO ttft.p99<=5ms missed").contains("TTFT p50").contains("completed");
  }

  private static List<String> failures(Events events) {
    return events.failed().stream().map(e -> e.getPayload(org.junit.platform.engine.TestExecutionResult.class)
        .flatMap(org.junit.platform.engine.TestExecutionResult::getThrowable).map(String::valueOf).orElse("?")).toList();
  }

  private static Events run(Class<?> testClass) {
    return EngineTestKit.engine("junit-jupiter").selectors(selectClass(testClass)).execute().testEvents();
  }

  private static boolean closed(String url) {
    try {
      HttpClient.newHttpClient().send(HttpRequest.newBuilder(URI.create(url + "/health")).build(),
          HttpResponse.BodyHandlers.discarding());
      return false;
    } catch (Exception e) {
      return true;
    }
  }
}

package dev.tokenmeter.examples.langchain4j;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.langchain4j.model.openai.OpenAiChatModel;
import dev.tokenmeter.api.Answer;
import dev.tokenmeter.api.Simulator;
import dev.tokenmeter.junit5.TokenmeterSimulator;
import org.junit.jupiter.api.Test;

/** The README's "Testing LLM applications in Java" snippet, as it is there. */
@TokenmeterSimulator(ttftMillis = 20, itlMillis = 2)      // one simulator for the class; OpenAI by default
class FirstTest {
  @Test
  void answersWhatTheSimulatorWasToldTo(Simulator sim) {
    sim.answer(Answer.text("Hello from the simulator."));
    var model = OpenAiChatModel.builder().baseUrl(sim.baseUrl()).apiKey("test").modelName(sim.model()).build();
    assertEquals("Hello from the simulator.", model.chat("Hi!"));    // LangChain4j
    assertEquals(1, sim.received().size());               // and its token counts, body, status
  }
}

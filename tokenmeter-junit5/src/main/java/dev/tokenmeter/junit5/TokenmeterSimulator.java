package dev.tokenmeter.junit5;

import dev.tokenmeter.api.Api;
import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Starts a tokenmeter {@link dev.tokenmeter.api.Simulator} for a test class or a test, and stops it
 * after.
 *
 * <ul>
 *   <li>On a test class: one simulator for the whole class, started before {@code @BeforeAll};
 *       test and lifecycle methods receive it as a {@code Simulator} parameter.
 *   <li>On a {@code Simulator} field: a static field gets one simulator per class, an instance
 *       field a fresh one per test.
 * </ul>
 *
 * <p>While it runs, these system properties point at it (restored afterwards), so a Spring Boot
 * context or a LangChain4j configuration read after it starts finds it without any code:
 *
 * <table>
 *   <caption>System properties set</caption>
 *   <tr><th>property</th><th>value</th><th>read by</th></tr>
 *   <tr><td>{@code tokenmeter.simulator.url}, {@code tokenmeter.simulator.port}</td><td>{@code http://127.0.0.1:PORT}, PORT</td><td>your own configuration</td></tr>
 *   <tr><td>{@code tokenmeter.simulator.base-url}</td><td>the API's SDK base URL ({@code …/v1} for OpenAI and Anthropic)</td><td>your own configuration</td></tr>
 *   <tr><td>{@code spring.ai.openai.base-url}</td><td>{@code http://127.0.0.1:PORT/v1}</td><td>Spring AI 2.0's auto-configuration (the openai-java SDK's base URL)</td></tr>
 *   <tr><td>{@code spring.ai.anthropic.base-url}, {@code spring.ai.ollama.base-url}</td><td>{@code http://127.0.0.1:PORT}</td><td>Spring AI's auto-configuration</td></tr>
 *   <tr><td>{@code langchain4j.open-ai.chat-model.base-url}, {@code langchain4j.open-ai.streaming-chat-model.base-url}, {@code langchain4j.anthropic.chat-model.base-url}, {@code langchain4j.anthropic.streaming-chat-model.base-url}</td><td>{@code http://127.0.0.1:PORT/v1}</td><td>LangChain4j's Spring Boot starters</td></tr>
 *   <tr><td>{@code langchain4j.ollama.chat-model.base-url}, {@code langchain4j.ollama.streaming-chat-model.base-url}</td><td>{@code http://127.0.0.1:PORT}</td><td>LangChain4j's Spring Boot starters</td></tr>
 * </table>
 *
 * <p>Plain LangChain4j reads no system property: build the model with {@code
 * .baseUrl(sim.baseUrl())}, or with {@code System.getProperty("tokenmeter.simulator.base-url")}.
 *
 * <pre>{@code
 * @TokenmeterSimulator(ttftMillis = 20, itlMillis = 5)
 * class ChatServiceTest {
 *   @Test
 *   void answers(Simulator sim) {
 *     sim.answer(Answer.text("Hello!"));
 *     ChatService service = new ChatService(sim.baseUrl());
 *     assertEquals("Hello!", service.ask("hi"));
 *   }
 * }
 * }</pre>
 */
@Documented
@Retention(RetentionPolicy.RUNTIME)
@Target({ElementType.TYPE, ElementType.FIELD})
@ExtendWith(SimulatorExtension.class)
public @interface TokenmeterSimulator {

  /** The API the application speaks: the base URL and the answers allowed (default OpenAI). */
  Api api() default Api.OPENAI;

  /** Time to first token, ms (default 50). Ignored with a {@link #preset()}. */
  long ttftMillis() default 50;

  /** Inter-token latency, ms (default 20). Ignored with a {@link #preset()}. */
  long itlMillis() default 20;

  /** A model and GPU preset instead of fixed timing, {@code "MODEL@GPU"}, e.g. {@code "llama-3.1-8b@h100-sxm"}. */
  String preset() default "";

  /** Random faults as {@code sim serve --faults}, e.g. {@code "http_429=0.05"}; empty: none. */
  String faults() default "";

  /** The served model name; empty: the preset's, or {@code tokenmeter-sim}. */
  String model() default "";

  /** TCP port; 0 (the default) picks a free one. */
  int port() default 0;

  /** Whether to set the system properties above (default true). */
  boolean systemProperties() default true;
}
